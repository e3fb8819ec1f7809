//! One connection per process, kept alive through broker outages.

use std::time::Duration;

use async_nats::jetstream::{Context, ContextBuilder};
use async_nats::{ConnectOptions, ServerAddr};

use super::NatsError;

const CONNECTION_TIMEOUT: Duration = Duration::from_secs(5);

/// Bounds every JetStream API request (look-ups, double acks); publishing sets its own.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The client's default grows to 4 s; at 1 s, events go out within about a second of the
/// broker coming back, and a retry a second costs nothing.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// A broker that is down is not an error, at start or later: the client reconnects in the
/// background for ever, and calls fail at their own timeouts meanwhile. `url` may name
/// several servers, comma-separated (a cluster's nodes): the client connects to any of them
/// and, when its server goes away, to another (`docs/events.md#a-jetstream-cluster`).
///
/// # Errors
/// [`NatsError::Connect`] when `url` holds something that is not a NATS URL.
pub async fn connect(url: &str) -> Result<Context, NatsError> {
    let servers = server_addrs(url)?;
    let client = ConnectOptions::new()
        .connection_timeout(CONNECTION_TIMEOUT)
        .request_timeout(Some(REQUEST_TIMEOUT))
        .retry_on_initial_connect()
        .max_reconnects(None)
        .reconnect_delay_callback(reconnect_delay)
        .connect(servers)
        .await
        .map_err(|e| NatsError::Connect(e.into()))?;
    Ok(ContextBuilder::new().timeout(REQUEST_TIMEOUT).build(client))
}

/// Each of the comma-separated URLs, blanks around them ignored.
fn server_addrs(urls: &str) -> Result<Vec<ServerAddr>, NatsError> {
    urls.split(',')
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(|url| {
            url.parse::<ServerAddr>()
                .map_err(|e| NatsError::Connect(e.into()))
        })
        .collect()
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

    #[test]
    fn a_list_of_urls_names_every_server_in_it() {
        let servers = server_addrs("nats://a:4222, nats://b:4223,nats://c:4224").unwrap();
        let hosts: Vec<(&str, u16)> = servers.iter().map(|s| (s.host(), s.port())).collect();
        assert_eq!(hosts, [("a", 4222), ("b", 4223), ("c", 4224)]);
        assert!(server_addrs("nats://a:4222,http://b").is_err());
    }
}
