//! `GET /openapi.json`: probes describe themselves with `#[utoipa::path]`, served routes
//! through their `PostDoc` or `GetDoc`. What utoipa cannot say is added in code: the bearer
//! scheme, `x-request-id`, and `required: true` on the headers that are always sent.

mod additions;
mod describe_get;
mod describe_post;
mod problem_schemas;
mod responses;
pub(crate) mod schemas;

use std::sync::LazyLock;

use actix_web::HttpResponse;
use actix_web::http::header::CONTENT_TYPE;
use serde_json::Value;
use utoipa::openapi::path::PathItem;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{Modify, OpenApi};

use self::additions::Additions;
pub(crate) use self::describe_get::describe_get;
pub(crate) use self::describe_post::describe_post;
use crate::http::edge::problem::Problem;
use crate::http::edge::request_context::REQUEST_ID;
use crate::http::edge::respond;
use crate::http::routes;

pub(crate) const BEARER: &str = "bearer";

pub(crate) struct Described {
    pub(crate) path: &'static str,
    pub(crate) item: PathItem,
    pub(crate) schemas: Vec<(String, RefOr<Schema>)>,
}

/// The fixed part; [`openapi_document`] adds the served routes.
#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "idempotent-orders",
        description = "Idempotent order creation (`orders.create.v1`) and payment capture \
            (`payments.capture.v1`). A client that times out \
            and retries with the same `Idempotency-Key` gets exactly one order and the same \
            answer it would have got the first time. Errors are `application/problem+json` \
            (RFC 9457) with a stable `code`. The API routes need a bearer token (JWT, \
            HS256) whose `scope` grants the route's permission; `/healthz`, \
            `/readyz`, `/metrics` and `/openapi.json` need none. Every response carries an \
            `x-request-id`.",
    ),
    paths(
        crate::http::routes::probes::healthz,
        crate::http::routes::probes::readyz,
        crate::http::routes::probes::metrics,
        openapi_json,
    ),
    components(schemas(
        Problem,
        problem_schemas::IdempotentBadRequest,
        problem_schemas::Unauthorized,
        problem_schemas::Forbidden,
        problem_schemas::NotFound,
        problem_schemas::PayloadTooLarge,
        problem_schemas::UnsupportedMediaType,
        problem_schemas::KeyReused,
        problem_schemas::Internal,
        problem_schemas::IdempotentUnavailable,
        problem_schemas::ReadUnavailable,
    )),
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
            (
                status.as_bytes().first(),
                header.to_ascii_lowercase().as_str()
            ),
            (Some(b'2'), "location")
        )
        || matches!(
            (status, header.to_ascii_lowercase().as_str()),
            ("401", "www-authenticate") | ("503", "retry-after")
        )
}

fn assembled() -> utoipa::openapi::OpenApi {
    let mut document = ApiDoc::openapi();
    let components = document.components.get_or_insert_with(Default::default);
    for route in routes::documented() {
        for (name, schema) in route.schemas {
            components.schemas.insert(name, schema);
        }
        match document.paths.paths.get_mut(route.path) {
            Some(item) => item.merge_operations(route.item),
            None => {
                document
                    .paths
                    .paths
                    .insert(route.path.to_owned(), route.item);
            }
        }
    }
    Additions.modify(&mut document);
    document
}

#[must_use]
pub fn openapi_document() -> Value {
    let mut document = serde_json::to_value(assembled()).unwrap_or(Value::Null);
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

static DOCUMENT: LazyLock<Vec<u8>> =
    LazyLock::new(|| serde_json::to_vec(&openapi_document()).unwrap_or_default());

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
pub(crate) async fn openapi_json() -> HttpResponse {
    let document: &'static [u8] = DOCUMENT.as_slice();
    if document.is_empty() {
        return respond::problem(&Problem::internal());
    }
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, application::JSON))
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
        let capture = &document["paths"]["/api/orders/{orderId}/payments"]["post"]["responses"];
        assert_eq!(capture["202"]["headers"]["Location"]["required"], true);
    }

    #[test]
    fn each_route_needs_its_permission_and_the_probes_no_token() {
        let document = openapi_document();
        let paths = &document["paths"];
        for (path, method, permission) in [
            ("/api/orders", "post", "orders:create"),
            ("/api/orders/{orderId}", "get", "orders:read"),
            ("/api/orders/{orderId}/payments", "post", "payments:create"),
            ("/api/operations/{operationId}", "get", "payments:read"),
        ] {
            assert_eq!(
                paths[path][method]["security"],
                serde_json::json!([{ "bearer": [permission] }]),
                "{method} {path}"
            );
        }
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
    fn an_operations_own_refusals_share_a_status_with_the_key_still_held() {
        let document = openapi_document();
        let schemas = &document["components"]["schemas"];
        let create = &document["paths"]["/api/orders"]["post"]["responses"]["409"];
        let name = create["content"]["application/problem+json"]["schema"]["$ref"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap();
        assert_eq!(
            schemas[name]["allOf"][1]["properties"]["code"]["enum"],
            serde_json::json!(["request_in_progress", "client_order_ref_conflict"])
        );
        let capture = &document["paths"]["/api/orders/{orderId}/payments"]["post"]["responses"];
        assert!(capture["404"].is_object());
        assert!(
            capture["409"]["description"]
                .as_str()
                .unwrap()
                .contains("payment_exists")
        );
    }

    #[test]
    fn the_request_body_carries_its_limits() {
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
