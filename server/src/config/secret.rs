//! The token signing secret: `AUTH_JWT_SECRET`, or with the embedded store a development
//! secret kept beside its data (created on first use, readable only by its owner).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use adapters::http::{MIN_SECRET_BYTES, TokenKeys};

use crate::config::database::DatabaseConfig;
use crate::config::{ConfigError, Lookup, invalid, optional_integer, text};

pub(crate) const DEVELOPMENT_SECRET_FILE: &str = "dev-jwt-secret";

/// Where the keys came from.
#[derive(Debug, Clone)]
pub(crate) enum Secret {
    Configured(TokenKeys),
    Development(TokenKeys),
}

/// The keys, refusing tokens that live longer than `AUTH_MAX_TOKEN_LIFETIME_SECS` when set.
pub(crate) fn token_keys(
    lookup: Lookup<'_>,
    database: &DatabaseConfig,
) -> Result<Secret, ConfigError> {
    let lifetime = optional_integer(lookup, "AUTH_MAX_TOKEN_LIFETIME_SECS", 1..=31_536_000)?;
    let bounded = |keys: TokenKeys| match lifetime {
        Some(secs) => keys.with_max_lifetime(secs),
        None => keys,
    };
    Ok(match secret_keys(lookup, database)? {
        Secret::Configured(keys) => Secret::Configured(bounded(keys)),
        Secret::Development(keys) => Secret::Development(bounded(keys)),
    })
}

fn secret_keys(lookup: Lookup<'_>, database: &DatabaseConfig) -> Result<Secret, ConfigError> {
    if let Some(secret) = text(lookup, "AUTH_JWT_SECRET")? {
        return TokenKeys::hs256(secret.as_bytes())
            .map(Secret::Configured)
            .map_err(|_| {
                invalid(
                    "AUTH_JWT_SECRET",
                    format!("must be at least {MIN_SECRET_BYTES} bytes"),
                )
            });
    }
    let Some(dir) = database.sqlite_dir() else {
        return Err(invalid(
            "AUTH_JWT_SECRET",
            "required with MySQL, the HS256 signing secret",
        ));
    };
    let secret = development_secret(&dir.join(DEVELOPMENT_SECRET_FILE)).map_err(|e| {
        invalid(
            "AUTH_JWT_SECRET",
            format!("unset, and the development secret beside the data cannot be kept: {e}"),
        )
    })?;
    TokenKeys::hs256(secret.as_bytes())
        .map(Secret::Development)
        .map_err(|_| invalid("AUTH_JWT_SECRET", "the development secret file is damaged"))
}

/// Created when missing, from two random UUIDs (244 random bits).
fn development_secret(path: &Path) -> std::io::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(secret) => return Ok(secret.trim().to_owned()),
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        Err(_) => {}
    }
    if let Some(dir) = path.parent() {
        adapters::sqlite::private_dir(dir)?;
    }
    let secret = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(mut file) => {
            file.write_all(secret.as_bytes())?;
            Ok(secret)
        }
        // Another process created it first: use theirs.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(std::fs::read_to_string(path)?.trim().to_owned())
        }
        Err(error) => Err(error),
    }
}
