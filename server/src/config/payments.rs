//! The capture workers' configuration: the payment provider, the lease, and the workers'
//! pacing (`docs/long-running-operations.md#configuration`).

use std::time::Duration;

use application::leased::WorkerSettings;
use chrono::TimeDelta;
use domain::OwnerId;

use crate::config::{ConfigError, Lookup, integer, invalid, text};

#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PaymentsConfig {
    /// `PAYMENT_PROVIDER_URL`: unset, no worker runs. Never logged or quoted: it may hold
    /// credentials.
    pub(crate) provider_url: Option<String>,
    pub(crate) lease: Duration,
    pub(crate) max_attempts: u32,
    pub(crate) poll: Duration,
    pub(crate) provider_timeout: Duration,
    pub(crate) first_backoff: Duration,
    pub(crate) concurrency: usize,
    /// How long the provider honours a key: an operation older than that ends
    /// `needs_review` uncalled.
    pub(crate) key_retention: Duration,
}

impl PaymentsConfig {
    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, ConfigError> {
        let provider_url = text(lookup, "PAYMENT_PROVIDER_URL")?;
        let lease_secs = integer(lookup, "OPERATION_LEASE_SECS", 1..=3600, 30)?;
        let max_attempts = integer(lookup, "OPERATION_MAX_ATTEMPTS", 1..=100, 8)?;
        let poll = integer(lookup, "WORKER_POLL_MS", 10..=60_000, 200)?;
        let timeout = integer(lookup, "PROVIDER_TIMEOUT_MS", 1..=3_600_000, 10_000)?;
        // The heartbeat keeps the lease alive through a slow call; a call allowed to take
        // longer than the lease itself is a misconfiguration, not a slow provider.
        if timeout >= lease_secs * 1000 {
            return Err(invalid(
                "PROVIDER_TIMEOUT_MS",
                "must be less than the lease (OPERATION_LEASE_SECS, in milliseconds)",
            ));
        }
        let backoff = integer(lookup, "OPERATION_BACKOFF_MS", 1..=3_600_000, 1000)?;
        let concurrency = integer(lookup, "WORKER_CONCURRENCY", 1..=64, 2)?;
        let retention = integer(
            lookup,
            "PROVIDER_KEY_RETENTION_SECS",
            60..=31_536_000,
            86_400,
        )?;
        Ok(Self {
            provider_url,
            lease: Duration::from_secs(lease_secs),
            max_attempts: u32::try_from(max_attempts).unwrap_or(8),
            poll: Duration::from_millis(poll),
            provider_timeout: Duration::from_millis(timeout),
            first_backoff: Duration::from_millis(backoff),
            concurrency: usize::try_from(concurrency).unwrap_or(2),
            key_retention: Duration::from_secs(retention),
        })
    }

    pub(crate) fn worker_settings(&self, owner: OwnerId) -> WorkerSettings {
        WorkerSettings {
            owner,
            lease: TimeDelta::from_std(self.lease).unwrap_or(TimeDelta::seconds(30)),
            max_attempts: self.max_attempts,
            first_backoff: self.first_backoff,
            key_retention: self.key_retention(),
        }
    }

    /// `PROVIDER_KEY_RETENTION_SECS`: workers and operators both honour it.
    pub(crate) fn key_retention(&self) -> TimeDelta {
        TimeDelta::from_std(self.key_retention).unwrap_or(TimeDelta::seconds(86_400))
    }

    pub(crate) fn required_url(&self) -> Result<&str, ConfigError> {
        self.provider_url
            .as_deref()
            .ok_or_else(|| invalid("PAYMENT_PROVIDER_URL", "is required by this command"))
    }
}

/// Written by hand so that the provider's URL, which may hold credentials, never reaches
/// a log through `{:?}`.
impl std::fmt::Debug for PaymentsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaymentsConfig")
            .field("provider_url", &self.provider_url.as_ref().map(|_| "<set>"))
            .field("lease", &self.lease)
            .field("max_attempts", &self.max_attempts)
            .field("poll", &self.poll)
            .field("provider_timeout", &self.provider_timeout)
            .field("first_backoff", &self.first_backoff)
            .field("concurrency", &self.concurrency)
            .field("key_retention", &self.key_retention)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    fn parse(vars: &[(&str, &str)]) -> Result<PaymentsConfig, ConfigError> {
        parse_vars(vars, PaymentsConfig::from_lookup)
    }

    #[test]
    fn defaults_follow_the_contract() {
        let config = parse(&[]).unwrap();
        assert_eq!(config.provider_url, None);
        assert_eq!(config.lease, Duration::from_secs(30));
        assert_eq!(config.max_attempts, 8);
        assert_eq!(config.poll, Duration::from_millis(200));
        assert_eq!(config.provider_timeout, Duration::from_secs(10));
        assert_eq!(config.first_backoff, Duration::from_secs(1));
        assert_eq!(config.concurrency, 2);
        assert_eq!(config.key_retention, Duration::from_secs(86_400));
        assert_eq!(
            parse(&[("PROVIDER_KEY_RETENTION_SECS", "59")])
                .unwrap_err()
                .variable,
            "PROVIDER_KEY_RETENTION_SECS"
        );
        assert_eq!(
            parse(&[("PAYMENT_PROVIDER_URL", "")]).unwrap().provider_url,
            None
        );
        assert_eq!(
            config.required_url().unwrap_err().variable,
            "PAYMENT_PROVIDER_URL"
        );
    }

    #[test]
    fn the_settings_carry_the_lease_attempts_and_backoff() {
        let config = parse(&[
            ("OPERATION_LEASE_SECS", "12"),
            ("OPERATION_MAX_ATTEMPTS", "3"),
            ("OPERATION_BACKOFF_MS", "250"),
            ("PROVIDER_TIMEOUT_MS", "11999"),
        ])
        .unwrap();
        let owner = OwnerId::parse("1-0-abcdef01").unwrap();
        let settings = config.worker_settings(owner.clone());
        assert_eq!(settings.owner, owner);
        assert_eq!(settings.lease, TimeDelta::seconds(12));
        assert_eq!(settings.max_attempts, 3);
        assert_eq!(settings.first_backoff, Duration::from_millis(250));
    }

    #[test]
    fn each_range_is_enforced_at_both_ends() {
        let cases = [
            ("OPERATION_LEASE_SECS", "0", "1"),
            ("OPERATION_LEASE_SECS", "3601", "3600"),
            ("OPERATION_MAX_ATTEMPTS", "0", "1"),
            ("OPERATION_MAX_ATTEMPTS", "101", "100"),
            ("WORKER_POLL_MS", "9", "10"),
            ("WORKER_POLL_MS", "60001", "60000"),
            ("PROVIDER_TIMEOUT_MS", "0", "1"),
            ("OPERATION_BACKOFF_MS", "0", "1"),
            ("OPERATION_BACKOFF_MS", "3600001", "3600000"),
            ("WORKER_CONCURRENCY", "0", "1"),
            ("WORKER_CONCURRENCY", "65", "64"),
        ];
        for (variable, bad, good) in cases {
            // A lease of a second needs a timeout below it.
            let timeout = ("PROVIDER_TIMEOUT_MS", "500");
            let others = if variable == timeout.0 {
                vec![]
            } else {
                vec![timeout]
            };
            let with = |value| {
                let mut vars = others.clone();
                vars.push((variable, value));
                parse(&vars)
            };
            assert_eq!(with(bad).unwrap_err().variable, variable, "{bad}");
            assert!(with(good).is_ok(), "{variable}={good}");
        }
    }

    #[test]
    fn a_provider_timeout_as_long_as_the_lease_is_refused() {
        let with = |lease, timeout| {
            parse(&[
                ("OPERATION_LEASE_SECS", lease),
                ("PROVIDER_TIMEOUT_MS", timeout),
            ])
        };
        let error = with("5", "5000").unwrap_err();
        assert_eq!(error.variable, "PROVIDER_TIMEOUT_MS");
        assert!(with("5", "4999").is_ok());
        // The default timeout (10 s) against a shorter lease.
        let error = parse(&[("OPERATION_LEASE_SECS", "10")]).unwrap_err();
        assert_eq!(error.variable, "PROVIDER_TIMEOUT_MS");
    }

    #[test]
    fn the_url_is_neither_quoted_in_errors_nor_debugged() {
        let url = "https://user:hunter2@pay.example/";
        let error =
            parse(&[("PAYMENT_PROVIDER_URL", url), ("PROVIDER_TIMEOUT_MS", "x")]).unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
        let config = parse(&[("PAYMENT_PROVIDER_URL", url)]).unwrap();
        assert_eq!(config.required_url().unwrap(), url);
        let debugged = format!("{config:?}");
        assert!(!debugged.contains("hunter2"), "{debugged}");
        assert!(debugged.contains("<set>"), "{debugged}");
    }
}
