//! Time, as a port, so tests and the domain never read the wall clock themselves, and
//! never wait on it either.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};

/// The source of "now", and of pauses.
pub trait Clock: Send + Sync {
    /// The current time, at microsecond precision (what `DATETIME(6)` stores), so the
    /// stored response and the stored row never disagree.
    fn now(&self) -> DateTime<Utc>;

    /// Waits `duration` (the pause before running a deadlocked unit again). Boxed so the
    /// clock stays a trait object; it is only called on a retry. By default it does not
    /// wait at all, which is what tests' fixed clocks want.
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let _ = duration;
        Box::pin(std::future::ready(()))
    }
}

/// The system clock, cut to microseconds; its pauses are the runtime's timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }

    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(duration))
    }
}
