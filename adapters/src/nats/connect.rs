//! One connection per process, kept alive through broker outages.

use std::time::Duration;

use async_nats::ConnectOptions;
use async_nats::jetstream::{Context, ContextBuilder};

use super::NatsError;

/// How long one attempt to open the TCP connection and finish the handshake may take.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(5);

/// The bound of every JetStream API request (stream and consumer look-ups, double acks)
/// and the default wait for a publish's ack. Publishing sets its own, see
/// [`super::publish_batch`].
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest pause between reconnect attempts. The client's own default grows to 4 s;
/// capped lower, events go out within about a second of the broker coming back, and a
/// retry a second against a local broker costs nothing.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// Connects to `url` (e.g. `nats://127.0.0.1:4222`; credentials in the URL are used)
/// and returns a JetStream context over the connection.
///
/// A broker that is down is not an error, at start or later: the client connects (and
/// reconnects) in the background for ever, so a relay started during an outage keeps
/// its events in the outbox and publishes them once the broker is back, instead of
/// failing the process. Meanwhile requests and publishes fail at their own timeouts.
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
        .map_err(|e| NatsError::Connect(e.to_string()))?;
    Ok(ContextBuilder::new().timeout(REQUEST_TIMEOUT).build(client))
}

/// The pause before reconnect attempt `attempts` (1 for the first): none for the first,
/// then 100 ms more per attempt up to [`MAX_RECONNECT_DELAY`].
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
