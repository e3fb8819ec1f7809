//! `/healthz`, `/readyz` and `/metrics`: for orchestrators and scrapers, without a token.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpResponse, web};
use application::ports::{self, FlowHooks, UnitOfWork};

use super::AppState;
use crate::http::openapi::schemas::{Health, Readiness};
use crate::metrics::{METRICS_CONTENT_TYPE, Metrics};

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    operation_id = "healthz",
    summary = "Liveness: 200 while the process serves HTTP",
    description = "No token needed.",
    security(()),
    responses((status = 200, description = "The process serves.", body = Health)),
)]
// Generic like every route of the list (`crate::api`), which registers each alike.
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) async fn healthz<S, H>() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, crate::http::edge::respond::JSON))
        .body(r#"{"status":"ok"}"#)
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    operation_id = "readyz",
    summary = "Readiness: 200 when the database answers now and tokens can be verified, else 503",
    description = "No token needed.",
    security(()),
    responses(
        (status = 200, description = "The database answered.", body = Readiness,
            example = json!({"status": "ready"})),
        (status = 503, description = "The database did not answer.", body = Readiness,
            example = json!({"status": "unavailable"})),
    ),
)]
pub(crate) async fn readyz<S: UnitOfWork + ports::Readiness + 'static, H: FlowHooks + 'static>(
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    // Both: a process that cannot verify tokens yet answers every request 503.
    let ready = state.keys.is_ready() && state.store.is_ready().await;
    let (mut response, body) = if ready {
        (HttpResponse::Ok(), r#"{"status":"ready"}"#)
    } else {
        (
            HttpResponse::ServiceUnavailable(),
            r#"{"status":"unavailable"}"#,
        )
    };
    response
        .insert_header((CONTENT_TYPE, crate::http::edge::respond::JSON))
        .body(body)
}

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    operation_id = "metrics",
    summary = "Prometheus metrics (OpenMetrics text)",
    description = "No token needed. Among others: `idempotent_outcomes_total{operation,outcome}` \
        and `http_request_duration_seconds`.",
    security(()),
    responses((
        status = 200,
        description = "OpenMetrics text, `version=1.0.0; charset=utf-8`.",
        body = String,
        content_type = "application/openmetrics-text",
    )),
)]
// Generic like every route of the list (`crate::api`), which registers each alike.
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) async fn metrics<S, H>(metrics: web::Data<std::sync::Arc<Metrics>>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, METRICS_CONTENT_TYPE))
        .body(metrics.render())
}
