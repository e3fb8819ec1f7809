//! The HTTP edge: routes over actix-web, and the pure parts they use (strict body
//! decoding, the `Idempotency-Key` header, bearer tokens, problem details, metrics).
//!
//! The pure parts take bytes and header values, not framework types, so their rules are
//! unit-tested without a server.

mod auth;
mod body;
mod capture_body;
mod capture_payment;
mod create_order;
mod edge;
mod get_operation;
mod get_order;
mod key_header;
mod members;
mod metrics;
mod openapi;
mod openapi_additions;
mod operation_metrics;
mod outcome_problem;
mod probes;
mod problem;
mod problem_schemas;
mod request_context;
mod respond;
mod responses;
mod schema;
mod schema_payments;
mod state;
mod strict_json;

use std::sync::Arc;

use actix_web::web;
use application::ports::FlowHooks;

pub use auth::{AuthError, Claims, EXP_LEEWAY_SECS, MIN_SECRET_BYTES, TokenKeys, WeakSecret};
pub use body::decode_new_order;
pub use capture_body::{CaptureBody, decode_capture_body};
pub use edge::{BODY_LIMIT_BYTES, IDEMPOTENCY_KEY};
pub use get_operation::PAYMENTS_READ;
pub use get_order::ORDERS_READ;
pub use key_header::parse_key_header;
pub use members::FieldError;
pub use metrics::{METRICS_CONTENT_TYPE, Metrics, outcome_label};
pub use openapi::{ApiDoc, openapi_document};
pub use problem::{PROBLEM_JSON, Problem, ProblemField, RETRY_AFTER_SECS};
pub use request_context::{REQUEST_ID, request_context};
pub use respond::IDEMPOTENT_REPLAYED;
pub use state::{AppState, ServiceStore};

/// Registers every route and the shared metrics. Each worker's `AppState<S, H>` comes from
/// the app's data (for example `App::data_factory`, one store per worker). Wrap the app in
/// [`request_context`] for request ids, logs and latency.
pub fn routes<S: ServiceStore, H: FlowHooks + 'static>(
    metrics: Arc<Metrics>,
) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        config
            .app_data(web::Data::new(metrics))
            .route(
                "/api/orders",
                web::post().to(create_order::create_order::<S, H>),
            )
            .route(
                "/api/orders/{order_id}",
                web::get().to(get_order::get_order::<S, H>),
            )
            .route(
                "/api/orders/{order_id}/payments",
                web::post().to(capture_payment::capture_payment::<S, H>),
            )
            .route(
                "/api/operations/{operation_id}",
                web::get().to(get_operation::get_operation::<S, H>),
            )
            .route("/healthz", web::get().to(probes::healthz))
            .route("/readyz", web::get().to(probes::readyz::<S, H>))
            .route("/metrics", web::get().to(probes::metrics::<S, H>))
            .route("/openapi.json", web::get().to(openapi::openapi_json));
    }
}
