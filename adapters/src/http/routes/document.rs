//! `GET /openapi.json`: the document of every route in the list (`crate::api`), rendered
//! once there and handed to this handler as app data.

use actix_web::HttpResponse;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::web::Data;

use crate::http::edge::problem::Problem;
use crate::http::edge::respond;

/// The rendered document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ApiDocument(pub(crate) &'static [u8]);

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
// Generic like every route of the list (`crate::api`), which registers each alike.
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) async fn openapi_json<S, H>(document: Data<ApiDocument>) -> HttpResponse {
    if document.0.is_empty() {
        return respond::problem(&Problem::internal());
    }
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, respond::JSON))
        .body(document.0)
}
