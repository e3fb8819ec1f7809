//! Waiting for what the processes do on their own time: a condition polled with a
//! deadline, never a guess of how long something takes.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::Api;

/// Polls `check` until it answers `Some`, for at most `timeout`: a condition the
/// processes reach on their own time, never a guess of how long they take.
pub async fn eventually<T, F, Fut>(timeout: Duration, check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    poll(timeout, check, Option::is_some).await.ok().flatten()
}

/// Polls `observe` until what it sees satisfies `done`; that value then.
///
/// # Panics
/// After `within`, naming `what` and the last value seen.
pub async fn wait_until<T, F, Fut>(
    within: Duration,
    what: &str,
    observe: F,
    done: impl Fn(&T) -> bool,
) -> T
where
    T: std::fmt::Debug,
    F: FnMut() -> Fut,
    Fut: Future<Output = T>,
{
    poll(within, observe, done)
        .await
        .unwrap_or_else(|last| panic!("{what} never happened; last seen: {last:?}"))
}

/// The one polling loop: `Ok` with the first value that satisfies `done`, `Err` with the
/// last one seen once `timeout` has passed. It looks again after 1 ms, then twice as long
/// each time up to [`LONGEST_PAUSE`]: a condition a many-round test waits for is seen
/// almost at once, and a long wait polls gently.
async fn poll<T, F, Fut>(
    timeout: Duration,
    mut observe: F,
    done: impl Fn(&T) -> bool,
) -> Result<T, T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = T>,
{
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        let seen = observe().await;
        if done(&seen) {
            return Ok(seen);
        }
        if Instant::now() > deadline {
            return Err(seen);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// The longest pause between two looks.
const LONGEST_PAUSE: Duration = Duration::from_millis(20);

/// Waits until the metric `name{labels}` of the process behind `api` reaches `at_least`;
/// its value then.
///
/// # Panics
/// After `within`, with the value then.
pub async fn wait_for_metric(
    api: &Api,
    name: &str,
    labels: &str,
    at_least: f64,
    within: Duration,
) -> f64 {
    let value = |api: &Api| {
        if labels.is_empty() {
            api.metric(name)
        } else {
            api.labelled_metric(name, labels).unwrap_or(0.0)
        }
    };
    wait_until(
        within,
        &format!("{name}{{{labels}}} reaching {at_least}"),
        || async { value(api) },
        |now| *now >= at_least,
    )
    .await
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[tokio::test]
    async fn the_first_value_that_satisfies_is_returned() {
        let polls = Cell::new(0);
        let seen = wait_until(
            Duration::from_secs(30),
            "the third poll",
            || async {
                polls.set(polls.get() + 1);
                polls.get()
            },
            |n| *n >= 3,
        )
        .await;
        assert_eq!(seen, 3);
    }

    #[tokio::test]
    #[should_panic(expected = "never true never happened; last seen: false")]
    async fn past_the_bound_it_panics_naming_the_last_value() {
        wait_until(
            Duration::ZERO,
            "never true",
            || async { false },
            |done| *done,
        )
        .await;
    }

    #[tokio::test]
    async fn eventually_answers_none_past_the_bound() {
        let found: Option<()> = eventually(Duration::ZERO, || async { None }).await;
        assert!(found.is_none());
    }
}
