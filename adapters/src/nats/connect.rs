//! One connection per process, kept alive through broker outages.

use std::time::Duration;

use async_nats::ConnectOptions;
use async_nats::jetstream::{Context, ContextBuilder};

use super::NatsError;

const CONNECTION_TIMEOUT: Duration = Duration::from_secs(5);

/// Bounds every JetStream API request (look-ups, double acks); publishing sets its own.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The client's default grows to 4 s; at 1 s, events go out within about a second of the
/// broker coming back, and a retry a second costs nothing.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// A broker that is down is not an error, at start or later: the client reconnects in the
/// background for ever, and calls fail at their own timeouts meanwhile.
///
/// # Errors
/// [`NatsError::Connect`] when `url` is not a NATS URL.
pub async fn connect(url: &str) -> Result<Context, NatsError> {
    let client = ConnectOptions::new()
        .connection_timeout(CONNECTION_TIMEOUT)
        .request_timeout(Some(REQUEST_TIMEOUT))
        .retry_on_initial_connect()
        .max_reconnects(None)
        .reconnect_delay_callback(reconnect_delay)
        .connect(url)
        .await
        .map_err(|e| NatsError::Connect(e.into()))?;
    Ok(ContextBuilder::new().timeout(REQUEST_TIMEOUT).build(client))
}

/// None before the first attempt, then 100 ms more per attempt up to the cap.
fn reconnect_delay(attempts: usize) -> Duration {
    let steps = u32::try_from(attempts.saturating_sub(1)).unwrap_or(u32::MAX);
    Duration::from_millis(100)
        .saturating_mul(steps)
        .min(MAX_RECONNECT_DELAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnects_at_once_then_backs_off_to_the_cap() {
        assert_eq!(reconnect_delay(0), Duration::ZERO);
        assert_eq!(reconnect_delay(1), Duration::ZERO);
        assert_eq!(reconnect_delay(2), Duration::from_millis(100));
        assert_eq!(reconnect_delay(5), Duration::from_millis(400));
        assert_eq!(reconnect_delay(usize::MAX), MAX_RECONNECT_DELAY);
    }
}
