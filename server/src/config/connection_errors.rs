//! The HTTP/1 layer's errors before any route (`adapters::metrics::is_connection_error`):
//! counted by a layer of their own, left out of the log's, so a client sending malformed
//! heads makes no log line each.

use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered, filter_fn};
use tracing_subscriber::layer::Context;

/// Counts each event it is given.
pub(crate) struct Counting;

impl<S: Subscriber> Layer<S> for Counting {
    fn on_event(&self, _: &Event<'_>, _: Context<'_, S>) {
        adapters::metrics::count_connection_error();
    }
}

type IsConnectionError = fn(&Metadata<'_>) -> bool;

/// The counting layer, given the connection errors only.
pub(crate) fn counted<S: Subscriber>() -> Filtered<Counting, FilterFn<IsConnectionError>, S> {
    let only: IsConnectionError = adapters::metrics::is_connection_error;
    Counting.with_filter(filter_fn(only))
}

/// What the log's layers take: every event but those.
pub(crate) fn logged(event: &Metadata<'_>) -> bool {
    !adapters::metrics::is_connection_error(event)
}
