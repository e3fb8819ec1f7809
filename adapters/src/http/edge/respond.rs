//! Turning problems, stored responses and reads into actix responses.

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue, LOCATION, RETRY_AFTER};
use actix_web::{HttpResponse, HttpResponseBuilder};
use application::ErrorChain;
use application::ports::StoreError;
use domain::StoredResponse;

use super::problem::{PROBLEM_JSON, Problem};

pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";

/// The content type of the edge's own JSON answers: reads, probes, the document, the admin's.
pub(crate) const JSON: &str = "application/json";

pub(crate) fn problem(problem: &Problem) -> HttpResponse {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    response.insert_header((CONTENT_TYPE, PROBLEM_JSON));
    if let Some(seconds) = problem.retry_after {
        response.insert_header((RETRY_AFTER, seconds.to_string()));
    }
    response.body(problem.to_json())
}

/// `render` makes the `200`'s body and may add headers; a database failure is logged and
/// answered `503 unavailable`.
pub(crate) fn read<T>(
    found: Result<Option<T>, StoreError>,
    what: &'static str,
    render: impl FnOnce(T, &mut HttpResponseBuilder) -> Vec<u8>,
) -> HttpResponse {
    match found {
        Ok(Some(item)) => {
            let mut response = HttpResponse::Ok();
            response.insert_header((CONTENT_TYPE, JSON));
            let body = render(item, &mut response);
            response.body(body)
        }
        Ok(None) => problem(&Problem::not_found()),
        Err(error) => {
            tracing::warn!(error = %ErrorChain(&error), "{what} read failed");
            problem(&Problem::unavailable())
        }
    }
}

/// Byte for byte: status, `Content-Type`, `Location` and body as stored.
pub(crate) fn stored(response: &StoredResponse, replayed: bool) -> HttpResponse {
    let (Ok(status), Ok(content_type)) = (
        StatusCode::from_u16(response.status()),
        HeaderValue::from_str(response.content_type()),
    ) else {
        return problem(&Problem::internal());
    };
    let mut builder = HttpResponse::build(status);
    builder.insert_header((CONTENT_TYPE, content_type));
    if let Some(location) = response.location() {
        match HeaderValue::from_str(location) {
            Ok(value) => builder.insert_header((LOCATION, value)),
            Err(_) => return problem(&Problem::internal()),
        };
    }
    if replayed {
        builder.insert_header((IDEMPOTENT_REPLAYED, "true"));
    }
    builder.body(response.body().to_vec())
}
