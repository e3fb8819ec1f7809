//! `/healthz`, `/readyz` and `/metrics`: for orchestrators and scrapers, without a token.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpResponse, web};
use application::ports::FlowHooks;

use super::metrics::METRICS_CONTENT_TYPE;
use super::state::{AppState, ServiceStore};

/// `200` while the process serves HTTP.
pub(super) async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/json"))
        .body(r#"{"status":"ok"}"#)
}

/// `200` when the database answers a trivial query now, else `503`.
pub(super) async fn readyz<S: ServiceStore, H: FlowHooks + 'static>(
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let ready = state.store.is_ready().await;
    let (mut response, body) = if ready {
        (HttpResponse::Ok(), r#"{"status":"ready"}"#)
    } else {
        (
            HttpResponse::ServiceUnavailable(),
            r#"{"status":"unavailable"}"#,
        )
    };
    response
        .insert_header((CONTENT_TYPE, "application/json"))
        .body(body)
}

/// The Prometheus text exposition.
pub(super) async fn metrics<S: ServiceStore, H: FlowHooks + 'static>(
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, METRICS_CONTENT_TYPE))
        .body(state.metrics.render())
}
