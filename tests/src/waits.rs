//! Waiting for what the processes do on their own time: a condition polled with a
//! deadline, never a guess of how long something takes.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::Api;

/// Polls `check` until it answers `Some`, for at most `timeout`: a condition the
/// processes reach on their own time, never a guess of how long they take.
pub async fn eventually<T, F, Fut>(timeout: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = check().await {
            return Some(found);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

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
    eventually(within, || async {
        let now = value(api);
        (now >= at_least).then_some(now)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "{name}{{{labels}}} never reached {at_least}: {}",
            value(api)
        )
    })
}
