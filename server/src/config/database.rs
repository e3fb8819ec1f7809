//! Which store runs, from `DATABASE_URL`: MySQL for production, or the embedded SQLite
//! store (the default, under `./data/`).

use std::path::PathBuf;
use std::time::Duration;

use adapters::mysql::MysqlConfig;
use adapters::sqlite::SqliteConfig;

use crate::config::{ConfigError, Lookup, integer, invalid, text};

pub(crate) const DEFAULT_SQLITE_PATH: &str = "data/orders.sqlite3";

/// `max_connections` is for the HTTP workers; the administrative and capture stores add theirs.
#[derive(Debug, Clone)]
pub(crate) enum DatabaseConfig {
    /// `mysql://...`, passed to the driver unchanged.
    Mysql(MysqlConfig),
    /// `sqlite://PATH`, or nothing for [`DEFAULT_SQLITE_PATH`].
    Sqlite(SqliteConfig),
}

impl DatabaseConfig {
    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, ConfigError> {
        let lock_wait = integer(lookup, "LOCK_WAIT_TIMEOUT_SECS", 1..=3600, 5)?;
        let max_connections = integer(lookup, "DATABASE_MAX_CONNECTIONS", 1..=1000, 32)?;
        let max_connections = usize::try_from(max_connections).unwrap_or(32);
        // A follower waits up to the lock wait on a same-key insert: the deadline of a
        // database call must leave it that long, or a correct wait would look like silence.
        let timeout = integer(lookup, "DATABASE_TIMEOUT_SECS", 1..=3600, lock_wait + 1)?;
        if timeout <= lock_wait {
            return Err(invalid(
                "DATABASE_TIMEOUT_SECS",
                "must be larger than LOCK_WAIT_TIMEOUT_SECS",
            ));
        }
        let migration_timeout = integer(lookup, "MIGRATION_TIMEOUT_SECS", 1..=86_400, 3600)?;
        let node_return = integer(lookup, "DATABASE_NODE_RETURN_SECS", 1..=86_400, 60)?;
        let sqlite = |path: PathBuf| {
            Self::Sqlite(SqliteConfig {
                path,
                busy_timeout: Duration::from_secs(lock_wait),
                max_connections,
            })
        };
        match text(lookup, "DATABASE_URL")? {
            None => Ok(sqlite(PathBuf::from(DEFAULT_SQLITE_PATH))),
            Some(url) if url.starts_with("mysql://") => Ok(Self::Mysql(MysqlConfig {
                url,
                lock_wait_timeout_secs: u32::try_from(lock_wait).unwrap_or(5),
                max_connections,
                database_timeout: Duration::from_secs(timeout),
                migration_timeout: Duration::from_secs(migration_timeout),
                node_return: Duration::from_secs(node_return),
            })),
            Some(url) => match url.strip_prefix("sqlite://") {
                Some(path) if !path.is_empty() => Ok(sqlite(PathBuf::from(path))),
                _ => Err(invalid(
                    "DATABASE_URL",
                    "must be mysql://... or sqlite://PATH (unset: the embedded store under ./data/)",
                )),
            },
        }
    }

    /// How long a same-key request waits for the one before it.
    pub(crate) fn lock_wait(&self) -> Duration {
        match self {
            Self::Mysql(mysql) => Duration::from_secs(u64::from(mysql.lock_wait_timeout_secs)),
            Self::Sqlite(sqlite) => sqlite.busy_timeout,
        }
    }

    /// The embedded store's directory, where its development secret lives.
    pub(crate) fn sqlite_dir(&self) -> Option<PathBuf> {
        match self {
            Self::Sqlite(SqliteConfig { path, .. }) => Some(
                path.parent()
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), PathBuf::from),
            ),
            Self::Mysql(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn parse(url: Option<&str>) -> Result<DatabaseConfig, ConfigError> {
        DatabaseConfig::from_lookup(&|name| {
            (name == "DATABASE_URL")
                .then(|| url.map(OsString::from))
                .flatten()
        })
    }

    #[test]
    fn no_url_is_the_embedded_store_under_data() {
        let config = parse(None).unwrap();
        assert!(
            matches!(&config, DatabaseConfig::Sqlite(c) if c.path == std::path::Path::new(DEFAULT_SQLITE_PATH))
        );
        assert_eq!(config.sqlite_dir(), Some(PathBuf::from("data")));
    }

    #[test]
    fn a_sqlite_url_names_the_file_and_a_mysql_url_passes_through() {
        assert!(matches!(
            parse(Some("sqlite:///tmp/x.db")).unwrap(),
            DatabaseConfig::Sqlite(c) if c.path == std::path::Path::new("/tmp/x.db")
        ));
        assert!(matches!(
            parse(Some("mysql://u@h:1/db?prefer_socket=false")).unwrap(),
            DatabaseConfig::Mysql(c) if c.url == "mysql://u@h:1/db?prefer_socket=false"
        ));
        for bad in ["postgres://x", "sqlite://", "orders.db"] {
            assert_eq!(
                parse(Some(bad)).unwrap_err().variable,
                "DATABASE_URL",
                "{bad}"
            );
        }
    }
}
