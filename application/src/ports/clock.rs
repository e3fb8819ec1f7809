//! Time as a port, so tests and the domain never read or wait on the wall clock.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};

pub trait Clock: Send + Sync {
    /// Microseconds, what `DATETIME(6)` stores, so the stored response and row never disagree.
    fn now(&self) -> DateTime<Utc>;

    /// Boxed to keep the clock a trait object. The default does not wait, as tests' clocks want.
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let _ = duration;
        Box::pin(std::future::ready(()))
    }
}
