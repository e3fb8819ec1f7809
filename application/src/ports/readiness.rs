//! Whether the store can serve requests now, for a readiness probe.

use std::future::Future;

pub trait Readiness: Send + Sync {
    /// Never errors: a probe needs only yes or no; the cause belongs in the adapter's logs.
    fn is_ready(&self) -> impl Future<Output = bool> + Send;
}
