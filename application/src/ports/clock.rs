//! Time, as a port, so tests and the domain never read the wall clock themselves.

use chrono::{DateTime, SubsecRound, Utc};

/// The source of "now".
pub trait Clock: Send + Sync {
    /// The current time, at microsecond precision (what `DATETIME(6)` stores), so the
    /// stored response and the stored row never disagree.
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock, cut to microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }
}
