//! The wire shapes of the routes as OpenAPI schemas, for `GET /openapi.json`.
//!
//! The request body is decoded by the strict decoder in `body.rs` and the order JSON is
//! rendered in `application`; neither has a Rust type here, so these types describe them
//! with the contract's limits. They are never built on the request path: the tests below
//! hold them to the bytes the service really reads and writes. The problem schemas are in
//! `problem_schemas`.

use utoipa::ToSchema;

pub(super) use super::problem_schemas::*;

/// The body of `POST /api/orders`: exactly these three members, all required. A member
/// that is unknown or repeated, `null`, of another type or out of range is `400
/// invalid_body`. Values are case-sensitive and never trimmed.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"clientOrderRef": "ref-42", "sku": "SKU-1", "quantity": 2}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(super) struct CreateOrderRequest {
    /// The client's own reference for the order, unique per tenant.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "ref-42"
    )]
    client_order_ref: String,
    /// The article ordered.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "SKU-1"
    )]
    sku: String,
    /// How many: a JSON integer (`1.0`, `"1"`, `1e0` and `true` are refused).
    #[schema(minimum = 1, maximum = 100, example = 2)]
    quantity: u8,
}

/// An order: the `201` of a create (stored, and replayed byte for byte) and the `200` of
/// a read have this one shape.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "orderId": "1",
    "clientOrderRef": "ref-42",
    "sku": "SKU-1",
    "quantity": 2,
    "createdAt": "2026-01-31T09:30:00.123456Z"
}))]
#[allow(dead_code)] // described, never built: `application` renders the order
pub(super) struct Order {
    /// The order id, a positive decimal integer written as a string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$", example = "1")]
    order_id: String,
    /// As sent.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "ref-42"
    )]
    client_order_ref: String,
    /// As sent.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "SKU-1"
    )]
    sku: String,
    /// As sent.
    #[schema(minimum = 1, maximum = 100, example = 2)]
    quantity: u8,
    /// When the order was created: RFC 3339, UTC, microseconds.
    #[schema(format = DateTime, example = "2026-01-31T09:30:00.123456Z")]
    created_at: String,
}

/// The `Idempotent-Replayed` header of a replay.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(super) enum Replayed {
    /// The answer is the stored one.
    True,
}

/// `GET /healthz`.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"status": "ok"}))]
#[allow(dead_code)] // described, never built: the probe answers a fixed text
pub(super) struct Health {
    status: HealthState,
}

/// The process serves.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(super) enum HealthState {
    /// Always.
    Ok,
}

/// `GET /readyz`.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"status": "ready"}))]
#[allow(dead_code)] // described, never built: the probe answers a fixed text
pub(super) struct Readiness {
    status: ReadinessState,
}

/// Whether the database answers now.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(super) enum ReadinessState {
    /// `200`: the database answered a trivial query.
    Ready,
    /// `503`: it did not.
    Unavailable,
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use domain::{ClientOrderRef, NewOrder, OrderId, Quantity, Sku, TenantId};

    use super::*;

    #[test]
    fn the_order_schema_type_reads_what_application_renders() {
        let order = application::Order {
            id: OrderId::new(42),
            tenant: TenantId::parse(1).unwrap(),
            details: NewOrder {
                client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
                sku: Sku::parse("SKU-1").unwrap(),
                quantity: Quantity::parse(100).unwrap(),
            },
            created_at: DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
        };
        let read: Order = serde_json::from_slice(&order.to_json()).unwrap();
        assert_eq!(read.order_id, "42");
        assert_eq!(read.quantity, 100);
    }

    #[test]
    fn the_request_schema_type_reads_what_the_decoder_accepts() {
        let body = br#"{"clientOrderRef":"ref-42","sku":"SKU-1","quantity":2}"#;
        assert!(crate::http::decode_new_order(body).is_ok());
        let read: CreateOrderRequest = serde_json::from_slice(body).unwrap();
        assert_eq!(read.client_order_ref, "ref-42");
        assert!(
            serde_json::from_slice::<CreateOrderRequest>(
                br#"{"clientOrderRef":"r","sku":"s","quantity":1,"x":1}"#
            )
            .is_err()
        );
    }
}
