//! The runtime's clock: now, cut to microseconds, and pauses on tokio's timer.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use application::ports::Clock;
use chrono::{DateTime, SubsecRound, Utc};

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
