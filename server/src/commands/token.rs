//! `server token`: mint a bearer token with the configured secret.

use adapters::http::{Claims, TokenKeys};
use anyhow::Context;

use crate::cli::TokenArgs;

pub(crate) fn mint(keys: &TokenKeys, args: &TokenArgs) -> anyhow::Result<String> {
    let ttl = i64::try_from(args.ttl).context("--ttl is too large")?;
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        sub: args.actor.to_string(),
        tid: args.tenant,
        scope: args.scope.clone(),
        exp: now.saturating_add(ttl),
        nbf: None,
        iat: Some(now),
    };
    keys.mint(&claims).context("cannot sign the token")
}
