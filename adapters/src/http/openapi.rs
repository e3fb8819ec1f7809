//! `GET /openapi.json`: the OpenAPI 3.1 document of every route, generated from the
//! handlers' `#[utoipa::path]` attributes and the `ToSchema` types of the wire shapes.
//!
//! Two things utoipa cannot say are added in code: the bearer scheme and the
//! `x-request-id` header every response carries (`openapi_additions`), and, here,
//! `required: true` on the response headers that are always sent (`Location` on `201` and
//! `202`, `WWW-Authenticate` on `401`, `Retry-After` on a `503`, `x-request-id`
//! everywhere), so a client and a conformance checker can rely on them.

use std::sync::LazyLock;

use actix_web::HttpResponse;
use actix_web::http::header::CONTENT_TYPE;
use serde_json::Value;
use utoipa::OpenApi;

use super::openapi_additions::Additions;
use super::problem::Problem;
use super::request_context::REQUEST_ID;
use super::{
    capture_payment, create_order, get_operation, get_order, probes, respond, schema,
    schema_payments,
};

/// The name of the bearer security scheme in the document.
pub(super) const BEARER: &str = "bearer";

/// The document's source: every route, its schemas and the bearer scheme.
#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "idempotent-orders",
        description = "Idempotent order creation (`orders.create.v1`) and payment capture \
            (`payments.capture.v1`). A client that times out \
            and retries with the same `Idempotency-Key` gets exactly one order and the same \
            answer it would have got the first time. Errors are `application/problem+json` \
            (RFC 9457) with a stable `code`. The order routes need a bearer token (JWT, \
            HS256) whose `scope` grants `orders:create` or `orders:read`; `/healthz`, \
            `/readyz`, `/metrics` and `/openapi.json` need none. Every response carries an \
            `x-request-id`.",
    ),
    paths(
        create_order::create_order,
        get_order::get_order,
        capture_payment::capture_payment,
        get_operation::get_operation,
        probes::healthz,
        probes::readyz,
        probes::metrics,
        openapi_json,
    ),
    components(schemas(
        schema::CreateOrderRequest,
        schema::Order,
        Problem,
        schema::IdempotentBadRequest,
        schema::Unauthorized,
        schema::Forbidden,
        schema::NotFound,
        schema::CreateConflict,
        schema::CaptureConflict,
        schema_payments::CaptureRequest,
        schema_payments::CaptureAccepted,
        schema_payments::OperationState,
        schema_payments::OperationStatus,
        schema_payments::Payment,
        schema::PayloadTooLarge,
        schema::UnsupportedMediaType,
        schema::KeyReused,
        schema::Internal,
        schema::IdempotentUnavailable,
        schema::ReadUnavailable,
    )),
    modifiers(&Additions),
    tags(
        (name = "orders", description = "Idempotent order creation and reads."),
        (name = "payments", description = "Payment captures: accepted at once, carried out by a worker under a lease."),
        (name = "operations", description = "Probes, metrics and this document; no token."),
    ),
)]
pub struct ApiDoc;

/// Whether a documented response header is sent on every response of that status.
fn always_sent(status: &str, header: &str) -> bool {
    header.eq_ignore_ascii_case(REQUEST_ID)
        || matches!(
            (status, header.to_ascii_lowercase().as_str()),
            ("201" | "202", "location") | ("401", "www-authenticate") | ("503", "retry-after")
        )
}

/// The document as JSON, with `required: true` on the headers that are always sent.
#[must_use]
pub fn openapi_document() -> Value {
    let mut document = serde_json::to_value(ApiDoc::openapi()).unwrap_or(Value::Null);
    let paths = document
        .get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut());
    for item in paths {
        let operations = item
            .as_object_mut()
            .into_iter()
            .flat_map(|item| item.values_mut());
        for operation in operations {
            let responses = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
                .into_iter()
                .flat_map(|responses| responses.iter_mut());
            for (status, response) in responses {
                let headers = response
                    .get_mut("headers")
                    .and_then(Value::as_object_mut)
                    .into_iter()
                    .flat_map(|headers| headers.iter_mut());
                for (name, header) in headers {
                    if always_sent(status, name)
                        && let Some(header) = header.as_object_mut()
                    {
                        header.insert("required".to_owned(), Value::Bool(true));
                    }
                }
            }
        }
    }
    document
}

/// The served bytes, rendered once.
static DOCUMENT: LazyLock<Vec<u8>> =
    LazyLock::new(|| serde_json::to_vec(&openapi_document()).unwrap_or_default());

/// This document.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "operations",
    operation_id = "openapi",
    summary = "This OpenAPI 3.1 document",
    description = "No token needed. Generated from the code that serves the routes.",
    security(()),
    responses((
        status = 200,
        description = "The OpenAPI 3.1 document.",
        body = Object,
        content_type = "application/json",
    )),
)]
pub(super) async fn openapi_json() -> HttpResponse {
    let document: &'static [u8] = DOCUMENT.as_slice();
    if document.is_empty() {
        return respond::problem(&Problem::internal());
    }
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/json"))
        .body(document)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_openapi_3_1_with_every_route() {
        let document = openapi_document();
        assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
        for (path, method) in [
            ("/api/orders", "post"),
            ("/api/orders/{orderId}", "get"),
            ("/api/orders/{orderId}/payments", "post"),
            ("/api/operations/{operationId}", "get"),
            ("/healthz", "get"),
            ("/readyz", "get"),
            ("/metrics", "get"),
            ("/openapi.json", "get"),
        ] {
            let operation = &document["paths"][path][method];
            assert!(operation.is_object(), "{method} {path}");
            for (status, response) in operation["responses"].as_object().unwrap() {
                assert_eq!(
                    response["headers"][REQUEST_ID]["required"], true,
                    "{method} {path} {status}"
                );
            }
        }
    }

    #[test]
    fn always_sent_headers_are_required_and_the_others_are_not() {
        let document = openapi_document();
        let create = &document["paths"]["/api/orders"]["post"]["responses"];
        assert_eq!(create["201"]["headers"]["Location"]["required"], true);
        assert!(create["201"]["headers"]["Idempotent-Replayed"]["required"].is_null());
        assert_eq!(
            create["401"]["headers"]["WWW-Authenticate"]["required"],
            true
        );
        assert!(create["409"]["headers"]["Retry-After"]["required"].is_null());
        assert_eq!(create["503"]["headers"]["Retry-After"]["required"], true);
    }

    #[test]
    fn the_order_routes_need_their_permission_and_the_others_no_token() {
        let document = openapi_document();
        let paths = &document["paths"];
        assert_eq!(
            paths["/api/orders"]["post"]["security"],
            serde_json::json!([{ "bearer": ["orders:create"] }])
        );
        assert_eq!(
            paths["/api/orders/{orderId}"]["get"]["security"],
            serde_json::json!([{ "bearer": ["orders:read"] }])
        );
        for path in ["/healthz", "/readyz", "/metrics", "/openapi.json"] {
            assert_eq!(
                paths[path]["get"]["security"],
                serde_json::json!([{}]),
                "{path}"
            );
        }
        let scheme = &document["components"]["securitySchemes"][BEARER];
        assert_eq!(scheme["scheme"], "bearer");
        assert_eq!(scheme["bearerFormat"], "JWT");
    }

    #[test]
    fn the_request_body_carries_the_contract_limits() {
        let document = openapi_document();
        let body = &document["components"]["schemas"]["CreateOrderRequest"];
        assert_eq!(body["additionalProperties"], false);
        let mut required: Vec<&str> = body["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort_unstable();
        assert_eq!(required, ["clientOrderRef", "quantity", "sku"]);
        for member in ["clientOrderRef", "sku"] {
            let schema = &body["properties"][member];
            assert_eq!(schema["pattern"], "^[A-Za-z0-9_-]{1,64}$");
            assert_eq!(
                (&schema["minLength"], &schema["maxLength"]),
                (&1.into(), &64.into())
            );
        }
        assert_eq!(body["properties"]["quantity"]["minimum"], 1);
        assert_eq!(body["properties"]["quantity"]["maximum"], 100);
    }
}
