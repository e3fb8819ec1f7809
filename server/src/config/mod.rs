//! Configuration from the environment. A bad or missing value stops the start with a
//! message that names the variable and never quotes the value (a URL may hold a password).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::time::Duration;

mod admin_ui;
pub(crate) mod auth;
pub(crate) mod batching;
mod connection_errors;
pub(crate) mod database;
pub(crate) mod events;
mod log_writer;
pub(crate) mod logging;
pub(crate) mod payments;
pub(crate) mod replay_cache;
pub(crate) mod secret;

use self::admin_ui::{admin_public_origin, admin_ui};
use self::auth::{AuthConfig, auth_config};
use self::batching::batching;
pub(crate) use self::database::DatabaseConfig;
use self::events::EventsConfig;
use self::payments::PaymentsConfig;
use self::replay_cache::replay_cache;
use application::ReplayCacheSettings;
use domain::RetentionPolicy;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}: {problem}")]
pub(crate) struct ConfigError {
    pub(crate) variable: &'static str,
    /// What is wrong with it, without its value.
    pub(crate) problem: String,
}

pub(crate) fn invalid(variable: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError {
        variable,
        problem: problem.into(),
    }
}

/// `std::env::var_os` outside tests; [`text`] treats an empty value as unset.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// One helper for every configuration's tests: `vars` stand in for the environment.
#[cfg(test)]
pub(crate) fn parse_vars<T>(
    vars: &[(&str, &str)],
    from_lookup: fn(Lookup<'_>) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    from_lookup(&move |name| {
        vars.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| OsString::from(v))
    })
}

pub(crate) fn text(
    lookup: Lookup<'_>,
    variable: &'static str,
) -> Result<Option<String>, ConfigError> {
    match lookup(variable) {
        None => Ok(None),
        Some(value) if value.is_empty() => Ok(None),
        Some(value) => value
            .into_string()
            .map(Some)
            .map_err(|_| invalid(variable, "must be valid UTF-8")),
    }
}

/// A `0`/`1` switch, off when unset.
pub(crate) fn switch(lookup: Lookup<'_>, variable: &'static str) -> Result<bool, ConfigError> {
    match text(lookup, variable)?.as_deref() {
        None | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(_) => Err(invalid(variable, "must be 0 or 1")),
    }
}

pub(crate) fn integer(
    lookup: Lookup<'_>,
    variable: &'static str,
    range: std::ops::RangeInclusive<u64>,
    default: u64,
) -> Result<u64, ConfigError> {
    Ok(optional_integer(lookup, variable, range)?.unwrap_or(default))
}

/// `None` when unset.
pub(crate) fn optional_integer(
    lookup: Lookup<'_>,
    variable: &'static str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, ConfigError> {
    let Some(raw) = text(lookup, variable)? else {
        return Ok(None);
    };
    raw.parse::<u64>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            invalid(
                variable,
                format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        })
        .map(Some)
}

#[derive(Debug, Clone)]
pub(crate) struct ServeConfig {
    pub(crate) database: DatabaseConfig,
    /// The HS256 secret (configured, or the embedded store's development secret), or an
    /// identity provider's key set.
    pub(crate) auth: AuthConfig,
    pub(crate) bind_addr: SocketAddr,
    /// How long completed records and published events are kept.
    pub(crate) retention: RetentionPolicy,
    pub(crate) purge_interval: Option<Duration>,
    /// How long in-flight requests may finish after a stop signal.
    pub(crate) shutdown_timeout_secs: u64,
    /// How long a request body may take to arrive after its head.
    pub(crate) body_timeout: Duration,
    /// Also holds the test-only pause directory that every flow of the process shares.
    pub(crate) events: EventsConfig,
    pub(crate) payments: PaymentsConfig,
    pub(crate) replay_cache: ReplayCacheSettings,
    /// `None` when batching is off.
    pub(crate) batching: Option<application::BatchSettings>,
    /// Whether the on-call page is served under `/admin/` (`ADMIN_UI=1`).
    pub(crate) admin_ui: bool,
    /// The origin its forms must come from (`ADMIN_PUBLIC_ORIGIN`); `None`: the address
    /// the server listens on.
    pub(crate) admin_public_origin: Option<adapters::api::PublicOrigin>,
}

impl ServeConfig {
    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, ConfigError> {
        // First: a refused pause directory must stop the start before anything is created.
        let events = EventsConfig::from_lookup(lookup)?;
        let database = DatabaseConfig::from_lookup(lookup)?;
        let auth = auth_config(lookup, &database)?;
        let bind_addr = match text(lookup, "BIND_ADDR")? {
            None => SocketAddr::from(([127, 0, 0, 1], 8080)),
            Some(raw) => raw.parse().map_err(|_| {
                invalid(
                    "BIND_ADDR",
                    "must be an address and port, as 127.0.0.1:8080",
                )
            })?,
        };
        let retention = retention(lookup)?;
        let purge_secs = integer(lookup, "PURGE_INTERVAL_SECS", 0..=86_400, 300)?;
        let shutdown_timeout_secs = integer(lookup, "SHUTDOWN_TIMEOUT_SECS", 1..=3600, 30)?;
        let body_timeout_secs = integer(lookup, "REQUEST_BODY_TIMEOUT_SECS", 1..=300, 10)?;
        Ok(Self {
            database,
            auth,
            bind_addr,
            retention,
            purge_interval: (purge_secs > 0).then(|| Duration::from_secs(purge_secs)),
            shutdown_timeout_secs,
            body_timeout: Duration::from_secs(body_timeout_secs),
            events,
            payments: PaymentsConfig::from_lookup(lookup)?,
            replay_cache: replay_cache(lookup)?,
            batching: batching(lookup)?,
            admin_ui: admin_ui(lookup)?,
            admin_public_origin: admin_public_origin(lookup)?,
        })
    }
}

/// `IDEMPOTENCY_RETENTION_SECS`, default 86400: how long completed records and published
/// events are kept.
pub(crate) fn retention(lookup: Lookup<'_>) -> Result<RetentionPolicy, ConfigError> {
    let secs = integer(
        lookup,
        "IDEMPOTENCY_RETENTION_SECS",
        1..=10 * 365 * 86_400,
        86_400,
    )?;
    RetentionPolicy::from_secs(secs)
        .map_err(|_| invalid("IDEMPOTENCY_RETENTION_SECS", "out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_config(vars: &[(&str, &str)]) -> Result<ServeConfig, ConfigError> {
        parse_vars(vars, ServeConfig::from_lookup)
    }

    const BASE: [(&str, &str); 2] = [
        ("DATABASE_URL", "mysql://root@127.0.0.1:3306/orders"),
        ("AUTH_JWT_SECRET", "0123456789abcdef0123456789abcdef"),
    ];

    #[test]
    fn the_defaults_are_the_documented_ones() {
        let config = serve_config(&BASE).unwrap();
        assert_eq!(config.bind_addr.to_string(), "127.0.0.1:8080");
        assert!(matches!(
            &config.database,
            DatabaseConfig::Mysql(mysql) if mysql.lock_wait_timeout_secs == 5
                && mysql.max_connections == 32
                && mysql.database_timeout == Duration::from_secs(6)
                && mysql.migration_timeout == Duration::from_secs(3600)
        ));
        assert_eq!(config.purge_interval, Some(Duration::from_secs(300)));
        assert_eq!(config.retention, RetentionPolicy::default());
        assert!(config.events.test_pause_dir.is_none());
        assert!(config.payments.provider_url.is_none());
        assert!(!config.admin_ui);
        assert!(config.admin_public_origin.is_none());
    }

    #[test]
    fn each_bad_value_names_its_variable() {
        let cases = [
            ("BIND_ADDR", "localhost"),
            ("LOCK_WAIT_TIMEOUT_SECS", "0"),
            ("LOCK_WAIT_TIMEOUT_SECS", "five"),
            ("IDEMPOTENCY_RETENTION_SECS", "-1"),
            ("PURGE_INTERVAL_SECS", "1.5"),
            ("AUTH_JWT_SECRET", "short"),
            ("DATABASE_URL", "postgres://x"),
            ("DATABASE_TIMEOUT_SECS", "5"),
            ("DATABASE_TIMEOUT_SECS", "0"),
            ("MIGRATION_TIMEOUT_SECS", "0"),
            ("PROVIDER_TIMEOUT_MS", "30000"),
            ("ADMIN_PUBLIC_ORIGIN", "http://oncall.example/admin"),
        ];
        for (variable, value) in cases {
            let mut vars = BASE.to_vec();
            vars.retain(|(k, _)| *k != variable);
            vars.push((variable, value));
            let error = serve_config(&vars).unwrap_err();
            assert_eq!(error.variable, variable, "{value}");
            if value.len() > 2 {
                assert!(!error.to_string().contains(value), "echoed {value}");
            }
        }
    }

    #[test]
    fn the_database_deadline_follows_the_lock_wait_unless_set() {
        let mut vars = BASE.to_vec();
        vars.push(("LOCK_WAIT_TIMEOUT_SECS", "2"));
        let timeout = |vars: &[(&str, &str)]| match serve_config(vars).unwrap().database {
            DatabaseConfig::Mysql(mysql) => mysql.database_timeout,
            DatabaseConfig::Sqlite(_) => unreachable!("a mysql URL"),
        };
        assert_eq!(timeout(&vars), Duration::from_secs(3));
        vars.push(("DATABASE_TIMEOUT_SECS", "10"));
        assert_eq!(timeout(&vars), Duration::from_secs(10));
    }

    #[test]
    fn mysql_without_a_secret_is_refused_naming_it() {
        let error = serve_config(&BASE[..1]).unwrap_err();
        assert_eq!(error.variable, "AUTH_JWT_SECRET");
    }

    #[test]
    fn a_zero_purge_interval_turns_the_timer_off() {
        let mut vars = BASE.to_vec();
        vars.push(("PURGE_INTERVAL_SECS", "0"));
        assert_eq!(serve_config(&vars).unwrap().purge_interval, None);
    }
}
