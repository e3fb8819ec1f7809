//! The count of spans the export pipeline let go, process-wide: the pipeline is built
//! before any [`crate::metrics::Metrics`], which registers this same counter.

use std::sync::LazyLock;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The export queue was full: the collector is slower than the spans come.
    QueueFull,
    /// The collector did not take the batch (down, refusing, or past the timeout).
    ExportFailed,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct DropLabels {
    reason: &'static str,
}

pub(crate) type DroppedSpans = Family<DropLabels, Counter>;

static DROPPED: LazyLock<DroppedSpans> = LazyLock::new(DroppedSpans::default);

pub fn count_dropped_spans(reason: DropReason, spans: u64) {
    let reason = match reason {
        DropReason::QueueFull => "queue_full",
        DropReason::ExportFailed => "export_failed",
    };
    DROPPED.get_or_create(&DropLabels { reason }).inc_by(spans);
}

/// The same counters, for the registry.
pub(crate) fn dropped_spans() -> DroppedSpans {
    DROPPED.clone()
}
