//! `orders.create.v1` over HTTP and SQL: its body, its route's description, its insert.

mod body;
mod sql;

use application::{CreateOrder, CreateRefusal, Refusal};
use domain::NewOrder;
use utoipa::ToSchema;

pub use body::decode_new_order;

use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::route::{PathIds, PostDoc, PostRoute, Undecodable};
use application::orders::OrderDocument;

impl ProblemForm for CreateRefusal {
    fn problem(&self) -> Problem {
        match self {
            Self::ClientOrderRefConflict => Problem::new(
                409,
                self.code(),
                "clientOrderRef already used",
                "An order with this clientOrderRef already exists in this tenant.",
            ),
        }
    }
}

impl PostRoute for CreateOrder {
    const PATH: &'static str = "/api/orders";
    type Request = CreateOrderRequest;
    type Answer = OrderDocument<'static>;

    fn decode(_path: &PathIds<'_>, body: &[u8]) -> Result<NewOrder, Undecodable> {
        decode_new_order(body).map_err(Undecodable::Body)
    }

    fn describe() -> PostDoc {
        PostDoc {
            path: "/api/orders",
            operation_id: "createOrder",
            tag: "orders",
            summary: "Create an order, at most once per Idempotency-Key",
            description: "A `clientOrderRef` already used in this tenant under another key is \
                `409 client_order_ref_conflict`; nothing about that order is revealed.",
            path_parameter: None,
            request_example: serde_json::json!({"clientOrderRef": "ref-42", "sku": "SKU-1", "quantity": 2}),
            status: 201,
            answer: "Created",
            answer_example: None,
            location: Some("`/api/orders/{orderId}`: where the order can be read."),
        }
    }
}

/// The body of `POST /api/orders`: exactly these three members, all required. A member
/// that is unknown or repeated, `null`, of another type or out of range is `400
/// invalid_body`. Values are case-sensitive and never trimmed.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"clientOrderRef": "ref-42", "sku": "SKU-1", "quantity": 2}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(crate) struct CreateOrderRequest {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_schema_type_reads_what_the_decoder_accepts() {
        let body = br#"{"clientOrderRef":"ref-42","sku":"SKU-1","quantity":2}"#;
        assert!(decode_new_order(body).is_ok());
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
