//! The batches' metrics (`docs/http-api.md#metrics`): how large they are, and which were
//! run again member by member, and why.

use application::{BatchObserver, RerunCause};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::Metrics;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RerunLabels {
    operation: &'static str,
    cause: &'static str,
}

type SizeFamily = Family<OperationLabels, Histogram, fn() -> Histogram>;

#[derive(Debug)]
pub(super) struct BatchMetrics {
    sizes: SizeFamily,
    reruns: Family<RerunLabels, Counter>,
    rerun_members: Family<RerunLabels, Counter>,
}

impl Default for BatchMetrics {
    fn default() -> Self {
        Self {
            sizes: Family::new_with_constructor(|| {
                Histogram::new([2.0, 4.0, 8.0, 12.0, 16.0, 32.0, 64.0])
            }),
            reruns: Family::default(),
            rerun_members: Family::default(),
        }
    }
}

impl BatchMetrics {
    pub(super) fn register(&self, registry: &mut Registry) {
        registry.register(
            "batch_size",
            "Requests per batch of two or more that went to the database as one \
             transaction (a batch of one is an ordinary request), by operation",
            self.sizes.clone(),
        );
        registry.register(
            "batch_reruns",
            "Batches rolled back and run again member by member, by operation and cause",
            self.reruns.clone(),
        );
        registry.register(
            "batch_rerun_members",
            "Requests of those batches, each run again alone",
            self.rerun_members.clone(),
        );
    }
}

impl BatchObserver for Metrics {
    fn batch_ran(&self, operation: &'static str, members: usize) {
        self.batches
            .sizes
            .get_or_create(&OperationLabels { operation })
            .observe(members as f64);
    }

    fn batch_rerun(&self, operation: &'static str, cause: RerunCause, members: usize) {
        let labels = RerunLabels {
            operation,
            cause: cause.label(),
        };
        self.batches.reruns.get_or_create(&labels).inc();
        self.batches
            .rerun_members
            .get_or_create(&labels)
            .inc_by(members as u64);
    }
}
