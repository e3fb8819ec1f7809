//! Admin answers: `200` with the application's JSON, and each refusal's problem.

use actix_web::HttpResponse;
use actix_web::http::header::CONTENT_TYPE;
use application::ErrorChain;
use application::admin::AdminRefusal;
use application::ports::StoreError;

use crate::http::edge::problem::Problem;
use crate::http::edge::respond;

pub(crate) fn json(body: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, application::JSON))
        .body(body)
}

/// A store failure is logged and answered `503 unavailable`.
pub(crate) fn unavailable(what: &'static str, error: &StoreError) -> HttpResponse {
    tracing::warn!(error = %ErrorChain(error), "admin {what} failed");
    respond::problem(&Problem::unavailable())
}

pub(crate) fn answered<T>(
    what: &'static str,
    result: Result<T, AdminRefusal>,
    render: impl FnOnce(&T) -> Vec<u8>,
) -> HttpResponse {
    let refusal = match result {
        Ok(value) => return json(render(&value)),
        Err(refusal) => refusal,
    };
    let problem = match &refusal {
        AdminRefusal::NotFound => Problem::not_found(),
        AdminRefusal::OperationState(_) | AdminRefusal::KeyState(_) => {
            Problem::state_conflict(refusal.current_state().unwrap_or("unknown"))
        }
        AdminRefusal::KeyRetentionPassed => Problem::key_retention_passed(),
        AdminRefusal::Busy { retry_after_secs } => Problem::operation_busy(*retry_after_secs),
        AdminRefusal::Store(error) => return unavailable(what, error),
    };
    respond::problem(&problem)
}

pub(crate) fn listed<T>(
    what: &'static str,
    result: Result<T, StoreError>,
    render: impl FnOnce(&T) -> Vec<u8>,
) -> HttpResponse {
    match result {
        Ok(value) => json(render(&value)),
        Err(error) => unavailable(what, &error),
    }
}
