//! What the service serves, listed once: every route (the admin's and the probes' too) and
//! every operation a worker carries out. From this list come the routes actix serves, the
//! OpenAPI document, the store bounds, the metrics' labels and the kinds the admin and the
//! workers look up by name (`http/routes/served.rs`). Adding an operation adds its line
//! here (`docs/adding-an-operation.md`).

use application::orders::CancelOrder;
use application::payments::{CapturePayment, RefundPayment};
use application::{CreateOrder, ReadOrder, leased::ReadOperation};

use crate::admin::http::{operation_routes as admin_operations, record_routes as admin_records};
use crate::http::routes::{document, probes, problem_types, served};

served! {
    operations: [CreateOrder, CancelOrder, CapturePayment, RefundPayment],
    reads: [ReadOrder, ReadOperation],
    leased: [CapturePayment, RefundPayment],
    routes: [
        get "/api/admin/operations" => admin_operations::list_operations,
        get "/api/admin/operations/{operation_id}" => admin_operations::show_operation,
        post "/api/admin/operations/{operation_id}/resolve" => admin_operations::resolve_operation,
        post "/api/admin/operations/{operation_id}/retry" => admin_operations::retry_operation,
        post "/api/admin/operations/{operation_id}/cancel" => admin_operations::cancel_operation,
        get "/api/admin/idempotency-keys" => admin_records::show_key,
        delete "/api/admin/idempotency-keys" => admin_records::evict_key,
        get "/api/admin/audit" => admin_records::list_audit,
        get "/healthz" => probes::healthz,
        get "/readyz" => probes::readyz,
        get "/metrics" => probes::metrics,
        get "/openapi.json" => document::openapi_json,
        get "/problems/{code}" => problem_types::problem_type,
    ],
}

/// The on-call page under `/admin/` (`docs/admin.md#the-on-call-page`): HTML over the
/// admin routes' use cases, added by the server only with `ADMIN_UI=1` and, being no API,
/// absent from the document.
pub use crate::admin::ui::{CsrfKey, PublicOrigin, PublicOriginError, routes as admin_ui_routes};

#[cfg(test)]
mod tests;
