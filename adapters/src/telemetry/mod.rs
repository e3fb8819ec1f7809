//! Distributed tracing's side of the adapters (`docs/tracing.md`): W3C trace context in
//! and out of every process boundary, and the spans of the statements. Only the
//! OpenTelemetry API is used here; the server installs the pipeline (or none), so with
//! tracing off every helper is a flag check and nothing else.

mod carriers;
mod dropped;
mod statement;

use std::sync::atomic::{AtomicBool, Ordering};

pub use carriers::{continue_from_headers, continue_trace};
pub(crate) use carriers::{current_trace_headers, current_traceparent, trace_id};
pub(crate) use dropped::dropped_spans;
pub use dropped::{DropReason, count_dropped_spans};
pub(crate) use statement::{QueryText, statement_span};

static ON: AtomicBool = AtomicBool::new(false);

/// Called once by the process that installed a span pipeline and the W3C propagator.
pub fn switch_on() {
    ON.store(true, Ordering::Relaxed);
}

/// Whether spans are being made: when not, no context is read, written or stored.
#[must_use]
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}
