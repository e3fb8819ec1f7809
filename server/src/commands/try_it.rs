//! The embedded store's welcome: a ready token and a curl line, logged once at start.

use std::net::SocketAddr;

use adapters::http::{Claims, TokenKeys};

/// Only with the development secret: a configured secret's tokens are never logged.
pub(crate) fn log_try_it(keys: &TokenKeys, address: SocketAddr) {
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        sub: "1".to_owned(),
        tid: 1,
        scope: "orders:create orders:read orders:cancel".to_owned(),
        exp: now + 86_400,
        nbf: None,
        iat: Some(now),
    };
    let Ok(token) = keys.mint(&claims) else {
        return;
    };
    tracing::info!(
        "development token (tenant 1, actor 1, valid 24 h; `server token` mints others):\n  \
         {token}\ntry:\n  curl -si http://{address}/api/orders -H 'Authorization: Bearer {token}' \
         -H 'Idempotency-Key: try-1' -H 'Content-Type: application/json' \
         -d '{{\"clientOrderRef\":\"ref-1\",\"sku\":\"SKU-1\",\"quantity\":2}}'"
    );
}
