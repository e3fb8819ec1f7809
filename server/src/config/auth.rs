//! How tokens are verified: with the HS256 secret (`secret.rs`), or with an identity
//! provider's key set (`AUTH_JWKS_URL` or `AUTH_JWKS_FILE`, with `AUTH_ISSUER`,
//! `AUTH_AUDIENCE` and the claim settings). Never both: a service that accepted either
//! could be fooled by whichever is weaker.

use std::path::PathBuf;
use std::time::Duration;

use adapters::http::{ClaimNames, EXP_LEEWAY_SECS, JwksSettings, JwksSource};

use crate::config::database::DatabaseConfig;
use crate::config::secret::{Secret, token_keys};
use crate::config::{ConfigError, Lookup, integer, invalid, optional_integer, text};

#[derive(Debug, Clone)]
pub(crate) enum AuthConfig {
    Secret(Secret),
    KeySet {
        source: JwksSource,
        settings: JwksSettings,
    },
}

pub(crate) fn auth_config(
    lookup: Lookup<'_>,
    database: &DatabaseConfig,
) -> Result<AuthConfig, ConfigError> {
    let source = match (
        text(lookup, "AUTH_JWKS_URL")?,
        text(lookup, "AUTH_JWKS_FILE")?,
    ) {
        (None, None) => return token_keys(lookup, database).map(AuthConfig::Secret),
        (Some(_), Some(_)) => {
            return Err(invalid(
                "AUTH_JWKS_FILE",
                "must not be set beside AUTH_JWKS_URL: name one key set",
            ));
        }
        (Some(url), None) => JwksSource::url(&url)
            .map_err(|_| invalid("AUTH_JWKS_URL", "must be an http or https URL"))?,
        (None, Some(file)) => JwksSource::file(PathBuf::from(file)),
    };
    if text(lookup, "AUTH_JWT_SECRET")?.is_some() {
        return Err(invalid(
            "AUTH_JWT_SECRET",
            "must not be set beside AUTH_JWKS_URL or AUTH_JWKS_FILE: with a key set, \
             HS256 tokens are refused",
        ));
    }
    let required = |variable| {
        text(lookup, variable)?
            .ok_or_else(|| invalid(variable, "is required with AUTH_JWKS_URL or AUTH_JWKS_FILE"))
    };
    let settings = JwksSettings {
        issuer: required("AUTH_ISSUER")?,
        audience: required("AUTH_AUDIENCE")?,
        leeway_secs: integer(lookup, "AUTH_LEEWAY_SECS", 0..=300, EXP_LEEWAY_SECS)?,
        claims: ClaimNames {
            tenant: text(lookup, "AUTH_TENANT_CLAIM")?.unwrap_or_else(|| "tid".to_owned()),
        },
        min_refresh: Duration::from_secs(integer(
            lookup,
            "AUTH_JWKS_MIN_REFRESH_SECS",
            1..=3600,
            30,
        )?),
        max_lifetime_secs: optional_integer(
            lookup,
            "AUTH_MAX_TOKEN_LIFETIME_SECS",
            1..=31_536_000,
        )?,
    };
    Ok(AuthConfig::KeySet { source, settings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    fn parse(vars: &[(&str, &str)]) -> Result<AuthConfig, ConfigError> {
        parse_vars(vars, |lookup| {
            let database = DatabaseConfig::from_lookup(lookup)?;
            auth_config(lookup, &database)
        })
    }

    const KEY_SET: [(&str, &str); 4] = [
        ("DATABASE_URL", "mysql://root@127.0.0.1:3306/orders"),
        ("AUTH_JWKS_URL", "https://idp.example/keys"),
        ("AUTH_ISSUER", "https://idp.example/"),
        ("AUTH_AUDIENCE", "orders-api"),
    ];

    #[test]
    fn a_key_set_takes_its_defaults() {
        let Ok(AuthConfig::KeySet { settings, .. }) = parse(&KEY_SET) else {
            panic!("a key set")
        };
        assert_eq!(settings.leeway_secs, 30);
        assert_eq!(settings.claims.tenant, "tid");
        assert_eq!(settings.min_refresh, Duration::from_secs(30));
        assert_eq!(settings.max_lifetime_secs, None);
    }

    #[test]
    fn a_secret_beside_a_key_set_is_refused_naming_both() {
        let mut vars = KEY_SET.to_vec();
        vars.push(("AUTH_JWT_SECRET", "0123456789abcdef0123456789abcdef"));
        let error = parse(&vars).unwrap_err();
        assert_eq!(error.variable, "AUTH_JWT_SECRET");
        assert!(error.to_string().contains("AUTH_JWKS_URL"), "{error}");
        assert!(!error.to_string().contains("0123456789abcdef"));
    }

    #[test]
    fn issuer_audience_and_bounds_are_checked() {
        for (missing, value) in [
            ("AUTH_ISSUER", None),
            ("AUTH_AUDIENCE", None),
            ("AUTH_LEEWAY_SECS", Some("301")),
            ("AUTH_JWKS_MIN_REFRESH_SECS", Some("0")),
            ("AUTH_JWKS_URL", Some("ftp://idp/keys")),
            ("AUTH_JWKS_FILE", Some("/keys.json")),
        ] {
            let mut vars = KEY_SET.to_vec();
            if missing != "AUTH_JWKS_FILE" {
                vars.retain(|(k, _)| *k != missing);
            }
            if let Some(value) = value {
                vars.push((missing, value));
            }
            assert_eq!(parse(&vars).unwrap_err().variable, missing, "{missing}");
        }
    }
}
