//! Time as a port, so tests and the domain never read or wait on the wall clock.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub trait Clock: Send + Sync {
    /// Microseconds, what `DATETIME(6)` stores, so the stored response and row never disagree.
    fn now(&self) -> DateTime<Utc>;

    /// Boxed to keep the clock a trait object. The default does not wait, as tests' clocks want.
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let _ = duration;
        Box::pin(std::future::ready(()))
    }

    /// Time since a fixed start on a clock that never steps, for waits and the replay
    /// cache's time to live: a step of the wall clock must neither stretch nor cut them.
    /// The default is the process's own monotonic clock.
    fn monotonic(&self) -> Duration {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed()
    }
}
