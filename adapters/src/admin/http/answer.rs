//! Admin answers: `200` with the application's JSON, and each refusal's problem.

use actix_web::HttpResponse;
use actix_web::http::header::CONTENT_TYPE;
use application::ErrorChain;
use application::admin::AdminRefusal;
use application::ports::StoreError;

use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::edge::respond;

pub(crate) fn json(body: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, crate::http::edge::respond::JSON))
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
    if let AdminRefusal::Store(error) = &refusal {
        return unavailable(what, error);
    }
    respond::problem(&refusal.problem())
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
