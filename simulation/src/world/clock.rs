//! The clock only the simulation moves: `now` is the run's step count in microseconds
//! from a fixed start, and a pause ends when the scheduler says, never on the wall clock.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use application::ports::Clock;
use chrono::{DateTime, TimeDelta, Utc};

use super::World;

#[derive(Debug, Clone)]
pub(crate) struct SimClock(pub(crate) Arc<World>);

impl Clock for SimClock {
    fn now(&self) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH
            + TimeDelta::days(20_000)
            + TimeDelta::microseconds(self.0.micros())
    }

    /// The same step count: the coordinator's waits and the replay cache's time to live
    /// are measured on the run's time, as everything else.
    fn monotonic(&self) -> Duration {
        Duration::from_micros(u64::try_from(self.0.micros()).unwrap_or(0))
    }

    /// Any pause may end at any step: the code's deadlines must hold whenever they fire.
    /// The length asked for is not used, so a jittered pause leaves the run the same.
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let _ = duration;
        Box::pin(async move {
            self.0.parked().wait(None).await;
        })
    }
}
