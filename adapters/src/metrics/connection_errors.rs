//! Errors of the HTTP/1 layer before any route runs (a malformed request head, a body cut
//! off): actix-http reports each as an `ERROR` event of its dispatcher, for anyone who can
//! open a connection, so the log leaves them out and this process-wide counter counts them
//! (`http_connection_errors_total`).

use std::sync::LazyLock;

use prometheus_client::metrics::counter::Counter;
use tracing::{Level, Metadata};

/// Where actix-http's dispatcher reports them.
const DISPATCHER: &str = "actix_http::h1::dispatcher";

static ERRORS: LazyLock<Counter> = LazyLock::new(Counter::default);

/// Whether `event` is one of them: the log's layers filter these out, the counting layer
/// takes only these.
#[must_use]
pub fn is_connection_error(event: &Metadata<'_>) -> bool {
    event.target() == DISPATCHER && *event.level() == Level::ERROR
}

pub fn count_connection_error() {
    ERRORS.inc();
}

/// The same counter, for the registry.
pub(crate) fn connection_errors() -> Counter {
    ERRORS.clone()
}
