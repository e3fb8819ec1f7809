//! The routes of idempotency records and of the audit trail (`docs/admin.md`).

use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_READ, ADMIN_WRITE, AdminScope, audit_page_json, key_json};
use application::ports::FlowHooks;

use super::answer::{answered, listed};
use super::checks::{admin, admin_request, checked, query};
use super::params::{KeyParams, PageParams};
use super::query::{audit_query, key_query};
use crate::http::openapi::problem_schemas::{KeyConflict, NotFound};
use crate::http::openapi::responses::{AdminListRefusals, AuthRefusals};
use crate::http::routes::state::AppState;
use application::admin::AdminStore;
use application::admin::{AuditPage, KeyBody as IdempotencyRecord};

const NO_RECORD: &str = "No such record in the admin's reach.";

#[utoipa::path(
    get,
    path = "/api/admin/idempotency-keys",
    tag = "admin",
    operation_id = "adminShowKey",
    summary = "Show an idempotency record's metadata",
    description = "State, fingerprint, times and the stored status; never the stored body.",
    security(("bearer" = ["admin:read"])),
    params(KeyParams),
    responses(
        (status = 200, description = "The record.", body = IdempotencyRecord<'static>),
        AuthRefusals,
        AdminListRefusals,
        (status = 404, description = NO_RECORD, body = NotFound,
            content_type = "application/problem+json"),
    ),
)]
pub(crate) async fn show_key<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    let (caller, address) = match checked(&request, &state.keys, ADMIN_READ, query(key_query)).await
    {
        Ok(checked) => checked,
        Err(turned) => return turned.response(),
    };
    let shown = admin(&state)
        .show_key(AdminScope::of(&caller), &address)
        .await;
    answered("key read", shown, key_json)
}

#[utoipa::path(
    delete,
    path = "/api/admin/idempotency-keys",
    tag = "admin",
    operation_id = "adminEvictKey",
    summary = "Evict a completed idempotency record before it expires",
    description = "The client may then use the key again. A `processing` record is never \
        evicted (`409 state_conflict`). Audited; answers the record as it was.",
    security(("bearer" = ["admin:write"])),
    params(KeyParams),
    responses(
        (status = 200, description = "The record that was evicted.", body = IdempotencyRecord<'static>),
        AuthRefusals,
        AdminListRefusals,
        (status = 404, description = NO_RECORD, body = NotFound,
            content_type = "application/problem+json"),
        (status = 409, description = "`state_conflict`: the record is `processing` (its \
            request runs), as `state` says.", body = KeyConflict,
            content_type = "application/problem+json"),
    ),
)]
pub(crate) async fn evict_key<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    let (caller, address) =
        match checked(&request, &state.keys, ADMIN_WRITE, query(key_query)).await {
            Ok(checked) => checked,
            Err(turned) => return turned.response(),
        };
    let evicted = admin(&state)
        .evict_key(&admin_request(&request, &caller), &address)
        .await;
    answered("key eviction", evicted, key_json)
}

#[utoipa::path(
    get,
    path = "/api/admin/audit",
    tag = "admin",
    operation_id = "adminListAudit",
    summary = "List audit events, newest first",
    description = "Every admin write, with who, what, the state before and after, and the \
        request id. Without `admin:all-tenants`, only changes to the token's tenant.",
    security(("bearer" = ["admin:read"])),
    params(PageParams),
    responses(
        (status = 200, description = "One page.", body = AuditPage<'static>),
        AuthRefusals,
        AdminListRefusals,
    ),
)]
pub(crate) async fn list_audit<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    let (caller, (cursor, limit)) =
        match checked(&request, &state.keys, ADMIN_READ, query(audit_query)).await {
            Ok(checked) => checked,
            Err(turned) => return turned.response(),
        };
    let page = admin(&state)
        .list_audit(AdminScope::of(&caller), cursor, limit)
        .await;
    listed("audit list", page, audit_page_json)
}
