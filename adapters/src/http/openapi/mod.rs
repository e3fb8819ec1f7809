//! The OpenAPI document, built from what the routes say: probes describe themselves with
//! `#[utoipa::path]`, served routes through their `PostDoc` or `GetDoc`. What utoipa cannot
//! say is added in code: the bearer scheme, `x-request-id`, and `required: true` on the
//! headers that are always sent.

mod additions;
mod describe_get;
mod describe_post;
pub(crate) mod problem_schemas;
pub(crate) mod responses;
pub(crate) mod schemas;

use serde_json::Value;
use utoipa::openapi::path::PathItem;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{Modify, OpenApi};

use self::additions::Additions;
pub(crate) use self::describe_get::describe_get;
pub(crate) use self::describe_post::{describe_post, schema_of};
use crate::http::edge::problem::Problem;
use crate::http::edge::request_context::REQUEST_ID;

pub(crate) const BEARER: &str = "bearer";

pub(crate) struct Described {
    pub(crate) path: &'static str,
    pub(crate) item: PathItem,
    pub(crate) schemas: Vec<(String, RefOr<Schema>)>,
}

/// The fixed part: the title, the shared schemas and the tags.
#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "idempotent-orders",
        description = "Idempotent order creation (`orders.create.v1`) and payment capture \
            (`payments.capture.v1`). A client that times out \
            and retries with the same `Idempotency-Key` gets exactly one order and the same \
            answer it would have got the first time. Errors are `application/problem+json` \
            (RFC 9457) with a stable `code`. The API routes need a bearer token (a JWT: \
            HS256 with the server's secret, or RS256, PS256, ES256 or EdDSA from an identity \
            provider) whose `scope` grants the route's permission; `/healthz`, \
            `/readyz`, `/metrics` and `/openapi.json` need none. Every response carries an \
            `x-request-id`.",
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
        (name = "admin", description = "For people on call: list, inspect, resolve, retry and cancel operations, evict idempotency records, read the audit trail (`admin:read`, `admin:write`, `admin:all-tenants`)."),
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

/// The fixed part, the probes' own paths and every served route, with the headers every
/// response carries, and `more` schemas no route names (each leased kind's result).
fn assembled(
    probes: utoipa::openapi::OpenApi,
    served: Vec<Described>,
    more: Vec<(String, RefOr<Schema>)>,
) -> utoipa::openapi::OpenApi {
    let mut document = ApiDoc::openapi().merge_from(probes);
    let components = document.components.get_or_insert_with(Default::default);
    components.schemas.extend(more);
    for route in served {
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

/// The document as JSON, with `required: true` on the headers that are always sent.
pub(crate) fn document(
    probes: utoipa::openapi::OpenApi,
    served: Vec<Described>,
    more: Vec<(String, RefOr<Schema>)>,
) -> Value {
    let mut document = serde_json::to_value(assembled(probes, served, more)).unwrap_or(Value::Null);
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
