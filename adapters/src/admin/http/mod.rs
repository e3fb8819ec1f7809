//! The admin routes under `/api/admin`, registered and documented together.

mod answer;
mod body;
mod checks;
mod operation_routes;
mod params;
mod problems;
mod query;
mod record_routes;
mod record_schemas;
mod schemas;
mod strict_query;

use actix_web::web;
use application::ports::FlowHooks;

use crate::http::routes::store::ServiceStore;

pub use query::{OperationsQuery, audit_query, key_query, operations_query};
pub use strict_query::BadParameters;

/// Adds the admin routes to the app.
pub(crate) fn register<S: ServiceStore, H: FlowHooks + 'static>(config: &mut web::ServiceConfig) {
    config
        .route(
            "/api/admin/operations",
            web::get().to(operation_routes::list_operations::<S, H>),
        )
        .route(
            "/api/admin/operations/{operation_id}",
            web::get().to(operation_routes::show_operation::<S, H>),
        )
        .route(
            "/api/admin/operations/{operation_id}/resolve",
            web::post().to(operation_routes::resolve_operation::<S, H>),
        )
        .route(
            "/api/admin/operations/{operation_id}/retry",
            web::post().to(operation_routes::retry_operation::<S, H>),
        )
        .route(
            "/api/admin/operations/{operation_id}/cancel",
            web::post().to(operation_routes::cancel_operation::<S, H>),
        )
        .route(
            "/api/admin/idempotency-keys",
            web::get().to(record_routes::show_key::<S, H>),
        )
        .route(
            "/api/admin/idempotency-keys",
            web::delete().to(record_routes::evict_key::<S, H>),
        )
        .route(
            "/api/admin/audit",
            web::get().to(record_routes::list_audit::<S, H>),
        );
}

/// The admin routes as the document lists them.
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    operation_routes::list_operations,
    operation_routes::show_operation,
    operation_routes::resolve_operation,
    operation_routes::retry_operation,
    operation_routes::cancel_operation,
    record_routes::show_key,
    record_routes::evict_key,
    record_routes::list_audit,
))]
pub(crate) struct AdminDoc;

#[cfg(test)]
mod tests {
    use crate::http::routes::openapi_document;

    fn parameters(path: &str, method: &str) -> Vec<String> {
        let document = openapi_document();
        document["paths"][path][method]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{}:{}",
                    p["in"].as_str().unwrap(),
                    p["name"].as_str().unwrap()
                )
            })
            .collect()
    }

    #[test]
    fn each_route_documents_the_parameters_its_query_reads() {
        let mut listing = parameters("/api/admin/operations", "get");
        listing.sort();
        assert_eq!(
            listing,
            [
                "query:acceptedAfter",
                "query:acceptedBefore",
                "query:cursor",
                "query:limit",
                "query:state",
                "query:tenant",
                "query:type"
            ]
        );
        assert_eq!(
            parameters("/api/admin/audit", "get"),
            ["query:cursor", "query:limit"]
        );
        for method in ["get", "delete"] {
            assert_eq!(
                parameters("/api/admin/idempotency-keys", method),
                [
                    "query:tenant",
                    "query:actor",
                    "query:operation",
                    "query:key"
                ]
            );
        }
    }
}
