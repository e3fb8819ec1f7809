//! Time, as a port, so tests and the domain never read the wall clock themselves, and
//! never wait on it either. The runtime's clock is an adapter's.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};

/// The source of "now", and of pauses.
pub trait Clock: Send + Sync {
    /// The current time, at microsecond precision (what `DATETIME(6)` stores), so the
    /// stored response and the stored row never disagree.
    fn now(&self) -> DateTime<Utc>;

    /// Waits `duration`. Boxed so the clock stays a trait object; it is called only on
    /// retries and heartbeats. By default it does not wait at all, which is what tests'
    /// fixed clocks want.
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let _ = duration;
        Box::pin(std::future::ready(()))
    }
}
