//! Whether the store can serve requests now, for a readiness probe.

use std::future::Future;

/// Answers a readiness probe.
pub trait Readiness: Send + Sync {
    /// `true` when the store answered a trivial query just now. Never errors: a probe only
    /// needs yes or no, and the cause belongs in the adapter's logs.
    fn is_ready(&self) -> impl Future<Output = bool> + Send;
}
