//! How a request sent through a recording `Api` becomes an [`Exchange`]: its route names
//! the operation and its token the scope, as the service itself reads them
//! (`docs/http-api.md`).

use adapters::http::TokenKeys;

use super::digest::{request_digest, sha256_hex};
use super::record::Exchange;
use crate::Reply;
use crate::service::TEST_SECRET;

/// The operation an idempotent `POST` to `path` runs.
#[must_use]
pub(super) fn operation_of(path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let name = if path == "/api/orders" {
        "orders.create.v1"
    } else if path.ends_with("/cancel") {
        "orders.cancel.v1"
    } else if path.ends_with("/payments") {
        "payments.capture.v1"
    } else if path.ends_with("/refunds") {
        "payments.refund.v1"
    } else {
        return format!("unknown:{path}");
    };
    name.to_owned()
}

/// The `(tenant, actor)` a token names, `(0, 0)` when it does not verify with the
/// tests' secret (a forged or expired token: the service refuses it anyway).
#[must_use]
pub(super) fn scope_of(token: &str) -> (u64, u64) {
    TokenKeys::hs256(TEST_SECRET.as_bytes())
        .ok()
        .and_then(|keys| keys.verify(token).ok())
        .map_or((0, 0), |caller| (caller.tenant.get(), caller.actor.get()))
}

/// One request to `path` with `token`, `key` and `body`, answered `result` (an error:
/// no response), sent and answered at these times.
#[must_use]
pub(crate) fn exchange_of(
    (path, token, key, body): (&str, &str, &str, &str),
    result: Result<&Reply, ()>,
    sent_us: u64,
    answered_us: u64,
) -> Exchange {
    let (tenant, actor) = scope_of(token);
    let mut exchange = Exchange {
        operation: operation_of(path),
        tenant,
        actor,
        key: key.to_owned(),
        request_digest: request_digest(body.as_bytes()),
        status: None,
        code: None,
        replayed: false,
        response_digest: None,
        location: None,
        sent_us,
        answered_us,
    };
    if let Ok(reply) = result {
        exchange.status = Some(reply.status);
        exchange.code = reply.code();
        exchange.replayed = reply.header("idempotent-replayed").as_deref() == Some("true");
        exchange.response_digest = Some(sha256_hex(&reply.body));
        exchange.location = reply.header("location");
    }
    exchange
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_their_operations_and_tokens_their_scope() {
        assert_eq!(operation_of("/api/orders"), "orders.create.v1");
        assert_eq!(operation_of("/api/orders/7/cancel"), "orders.cancel.v1");
        assert_eq!(
            operation_of("/api/orders/7/payments"),
            "payments.capture.v1"
        );
        assert_eq!(operation_of("/api/orders/7/refunds"), "payments.refund.v1");
        assert_eq!(scope_of(&crate::token(3, 4, "orders:create")), (3, 4));
        assert_eq!(scope_of("not-a-token"), (0, 0));
    }
}
