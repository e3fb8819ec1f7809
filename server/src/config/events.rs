//! The events' configuration: the broker, and how the relay paces itself
//! (`docs/events.md#configuration`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::{ConfigError, Lookup, integer, invalid, switch, text};
use crate::hooks::{Hooks, PAUSE_POINTS, hooks};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventsConfig {
    /// `NATS_URL`: unset, `serve` runs no relay and events wait in the outbox. Several
    /// comma-separated URLs name a cluster's servers.
    pub(crate) nats_url: Option<String>,
    pub(crate) batch: usize,
    pub(crate) poll: Duration,
    /// How long a batch's acks may take in all.
    pub(crate) ack_timeout: Duration,
    /// Used only when this process creates the `ORDERS` stream.
    pub(crate) duplicate_window: Duration,
    /// `NATS_STREAM_REPLICAS`: used only when this process creates the `ORDERS` stream.
    pub(crate) stream_replicas: usize,
    /// Redelivery after this long unacknowledged; set only when the consumer is created.
    pub(crate) consumer_ack_wait: Duration,
    /// `IDEMPOTENCY_TEST_PAUSE_DIR`: test-only pause points (see `adapters::pause_file`).
    pub(crate) test_pause_dir: Option<PathBuf>,
    /// `IDEMPOTENCY_TEST_DROP_ON_HANG_UP=1`: a request whose client closes its connection is
    /// dropped where it stands instead of run to its end, so a test reaches the store's
    /// handling of work abandoned mid-transaction (`docs/http-api.md#a-client-that-hangs-up`).
    pub(crate) test_drop_on_hang_up: bool,
    /// `METRICS_ADDR`: where a consumer process, which serves no API, serves `/metrics`.
    pub(crate) metrics_addr: Option<SocketAddr>,
}

impl EventsConfig {
    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, ConfigError> {
        let nats_url = text(lookup, "NATS_URL")?;
        if let Some(urls) = &nats_url
            && !urls
                .split(',')
                .map(str::trim)
                .all(|url| url.starts_with("nats://") || url.starts_with("tls://"))
        {
            return Err(invalid(
                "NATS_URL",
                "must be a nats:// or tls:// URL, or several separated by commas",
            ));
        }
        let batch = integer(lookup, "OUTBOX_BATCH", 1..=4096, 256)?;
        let poll = integer(lookup, "OUTBOX_POLL_MS", 1..=60_000, 50)?;
        let ack_timeout = integer(lookup, "NATS_ACK_TIMEOUT_MS", 100..=120_000, 5000)?;
        let window = integer(
            lookup,
            "NATS_DUPLICATE_WINDOW_MS",
            100..=86_400_000,
            120_000,
        )?;
        let replicas = integer(lookup, "NATS_STREAM_REPLICAS", 1..=5, 1)?;
        let ack_wait = integer(lookup, "CONSUMER_ACK_WAIT_MS", 100..=3_600_000, 30_000)?;
        let metrics_addr = text(lookup, "METRICS_ADDR")?
            .map(|raw| raw.parse())
            .transpose()
            .map_err(|_| {
                invalid(
                    "METRICS_ADDR",
                    "must be an address and port, as 127.0.0.1:9100",
                )
            })?;
        Ok(Self {
            nats_url,
            consumer_ack_wait: Duration::from_millis(ack_wait),
            batch: usize::try_from(batch).unwrap_or(256),
            poll: Duration::from_millis(poll),
            ack_timeout: Duration::from_millis(ack_timeout),
            duplicate_window: Duration::from_millis(window),
            stream_replicas: usize::try_from(replicas).unwrap_or(1),
            test_pause_dir: pause_dir(lookup)?,
            test_drop_on_hang_up: drop_on_hang_up(lookup)?,
            metrics_addr,
        })
    }

    pub(crate) fn warn_if_test_hooks(&self) {
        if self.test_pause_dir.is_some() {
            tracing::warn!("IDEMPOTENCY_TEST_PAUSE_DIR is set: test pause points are active");
        }
        if self.test_drop_on_hang_up {
            tracing::warn!(
                "IDEMPOTENCY_TEST_DROP_ON_HANG_UP is set: a request whose client hangs up is dropped"
            );
        }
    }

    /// Inert unless a test set the pause directory.
    pub(crate) fn hooks(&self) -> Hooks {
        hooks(self.test_pause_dir.clone())
    }

    pub(crate) fn required_url(&self) -> Result<&str, ConfigError> {
        self.nats_url
            .as_deref()
            .ok_or_else(|| invalid("NATS_URL", "is required by this command"))
    }
}

/// `IDEMPOTENCY_TEST_PAUSE_DIR`, refused by a build without pause points.
fn pause_dir(lookup: Lookup<'_>) -> Result<Option<PathBuf>, ConfigError> {
    let dir = text(lookup, "IDEMPOTENCY_TEST_PAUSE_DIR")?.map(PathBuf::from);
    only_in_a_test_build("IDEMPOTENCY_TEST_PAUSE_DIR", dir.is_some())?;
    Ok(dir)
}

/// `IDEMPOTENCY_TEST_DROP_ON_HANG_UP`, refused by a build without the test hooks.
fn drop_on_hang_up(lookup: Lookup<'_>) -> Result<bool, ConfigError> {
    const NAME: &str = "IDEMPOTENCY_TEST_DROP_ON_HANG_UP";
    let set = switch(lookup, NAME)?;
    only_in_a_test_build(NAME, set)?;
    Ok(set)
}

/// A test hook's variable, when `set`, stops a build without the hooks rather than being
/// ignored.
fn only_in_a_test_build(variable: &'static str, set: bool) -> Result<(), ConfigError> {
    if set && !PAUSE_POINTS {
        return Err(invalid(
            variable,
            "exists only in a build for the tests (the test-hooks feature); unset it",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    fn parse(vars: &[(&str, &str)]) -> Result<EventsConfig, ConfigError> {
        parse_vars(vars, EventsConfig::from_lookup)
    }

    #[test]
    fn defaults_follow_the_contract() {
        let config = parse(&[]).unwrap();
        assert_eq!(config.nats_url, None);
        assert_eq!(config.batch, 256);
        assert_eq!(config.poll, Duration::from_millis(50));
        assert_eq!(config.stream_replicas, 1);
        assert!(config.required_url().is_err());
    }

    #[test]
    fn a_cluster_is_several_urls_and_a_replica_count() {
        let config = parse(&[
            ("NATS_URL", "nats://a:4222,nats://b:4222, tls://c:4222"),
            ("NATS_STREAM_REPLICAS", "3"),
        ])
        .unwrap();
        assert_eq!(config.stream_replicas, 3);
        assert_eq!(
            parse(&[("NATS_URL", "nats://a:4222,http://b")])
                .unwrap_err()
                .variable,
            "NATS_URL"
        );
        assert_eq!(
            parse(&[("NATS_STREAM_REPLICAS", "0")])
                .unwrap_err()
                .variable,
            "NATS_STREAM_REPLICAS"
        );
    }

    #[test]
    fn dropping_on_hang_up_is_off_unless_set_to_1() {
        assert!(!parse(&[]).unwrap().test_drop_on_hang_up);
        assert!(
            !parse(&[("IDEMPOTENCY_TEST_DROP_ON_HANG_UP", "0")])
                .unwrap()
                .test_drop_on_hang_up
        );
        assert_eq!(
            parse(&[("IDEMPOTENCY_TEST_DROP_ON_HANG_UP", "yes")])
                .unwrap_err()
                .variable,
            "IDEMPOTENCY_TEST_DROP_ON_HANG_UP"
        );
    }

    #[test]
    fn bad_values_name_the_variable_without_quoting_it() {
        let error = parse(&[("NATS_URL", "http://user:secret@host")]).unwrap_err();
        assert_eq!(error.variable, "NATS_URL");
        assert!(!error.to_string().contains("secret"));
        assert_eq!(
            parse(&[("OUTBOX_BATCH", "0")]).unwrap_err().variable,
            "OUTBOX_BATCH"
        );
        assert_eq!(
            parse(&[("OUTBOX_POLL_MS", "x")]).unwrap_err().variable,
            "OUTBOX_POLL_MS"
        );
    }
}
