//! How the document describes the admin routes' query parameters (read by `query`).
#![allow(dead_code)] // described, never built

use utoipa::IntoParams;

use application::names::StateName as OperationState;

/// `GET /api/admin/operations`: every filter narrows the list (paged by [`PageParams`]).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct OperationsParams {
    /// Only operations in this state.
    state: Option<OperationState>,
    /// Only operations of this type, e.g. `payments.capture.v1`.
    #[param(
        rename = "type",
        pattern = "^[a-z0-9_]+(\\.[a-z0-9_]+)*$",
        min_length = 1,
        max_length = 64
    )]
    operation_type: Option<String>,
    /// Only this tenant's (within the token's reach).
    #[param(minimum = 1, maximum = 9_223_372_036_854_775_807_i64)]
    tenant: Option<i64>,
    /// Accepted strictly before this RFC 3339 date-time.
    #[param(rename = "acceptedBefore", format = DateTime)]
    accepted_before: Option<String>,
    /// Accepted at or after this RFC 3339 date-time.
    #[param(rename = "acceptedAfter", format = DateTime)]
    accepted_after: Option<String>,
}

/// `GET /api/admin/audit`, and the paging of every listing.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PageParams {
    /// The `nextCursor` of the page before; absent for the first page.
    #[param(pattern = "^[A-Za-z0-9_-]{1,128}$")]
    cursor: Option<String>,
    /// Items per page, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u8>,
}

/// Which idempotency record: all four are required.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct KeyParams {
    /// The record's tenant (the token's own without `admin:all-tenants`).
    #[param(minimum = 1, maximum = 9_223_372_036_854_775_807_i64)]
    tenant: i64,
    /// The actor that sent the key.
    #[param(minimum = 1, maximum = 9_223_372_036_854_775_807_i64)]
    actor: i64,
    /// The operation it was sent to, e.g. `orders.create.v1`.
    #[param(
        pattern = "^[a-z0-9_]+(\\.[a-z0-9_]+)*$",
        min_length = 1,
        max_length = 64
    )]
    operation: String,
    /// The `Idempotency-Key`.
    #[param(pattern = "^[A-Za-z0-9_-]{1,128}$")]
    key: String,
}
