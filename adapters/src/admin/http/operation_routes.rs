//! The operation routes (`docs/admin.md#actions`): list, show, and the three actions.

use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{
    ADMIN_READ, ADMIN_WRITE, AdminScope, operation_json, operations_page_json,
};
use application::ports::FlowHooks;
use domain::{OperatorAction, Resolution};

use super::answer::{answered, listed};
use super::body::{decode_nothing, decode_resolution};
use super::checks::{admin, admin_request, checked, path_id, query};
use super::params::{OperationsParams, PageParams};
use super::query::operations_query;
use super::schemas::{NoMembers, ResolveRequest};
use crate::http::edge::admit::{json_body, optional_json_body};
use crate::http::edge::members::FieldError;
use crate::http::edge::problem::Problem;
use crate::http::edge::respond;
use crate::http::openapi::responses::{
    AdminActionRefusals, AdminListRefusals, AuthRefusals, ReadRefusals,
};
use crate::http::routes::state::AppState;
use application::admin::AdminStore;
use application::admin::{OperationBody as AdminOperation, OperationsPage};

#[utoipa::path(
    get,
    path = "/api/admin/operations",
    tag = "admin",
    operation_id = "adminListOperations",
    summary = "List operations, newest first",
    description = "Keyset pages: pass `nextCursor` back as `cursor`. Without \
        `admin:all-tenants`, only the token's tenant is listed.",
    security(("bearer" = ["admin:read"])),
    params(OperationsParams, PageParams),
    responses(
        (status = 200, description = "One page.", body = OperationsPage<'static>),
        AuthRefusals,
        AdminListRefusals,
    ),
)]
pub(crate) async fn list_operations<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    let (caller, query) =
        match checked(&request, &state.keys, ADMIN_READ, query(operations_query)).await {
            Ok(checked) => checked,
            Err(turned) => return turned.response(),
        };
    let page = admin(&state)
        .list_operations(
            AdminScope::of(&caller),
            &query.filter,
            query.cursor,
            query.limit,
        )
        .await;
    listed("operations list", page, operations_page_json)
}

#[utoipa::path(
    get,
    path = "/api/admin/operations/{operationId}",
    tag = "admin",
    operation_id = "adminShowOperation",
    summary = "Show one operation",
    description = "Attempts, lease, generation, downstream key, the last attempt's error \
        class and the payment. Another tenant's is `404` without `admin:all-tenants`.",
    security(("bearer" = ["admin:read"])),
    params(("operationId" = String, Path, description = "A hyphenated UUID.")),
    responses(
        (status = 200, description = "The operation.", body = AdminOperation<'static>),
        AuthRefusals,
        ReadRefusals,
    ),
)]
pub(crate) async fn show_operation<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    let (caller, id) = match checked(&request, &state.keys, ADMIN_READ, path_id).await {
        Ok(found) => found,
        Err(turned) => return turned.response(),
    };
    let shown = admin(&state)
        .show_operation(AdminScope::of(&caller), id)
        .await;
    answered("operation read", shown, operation_json)
}

/// What an action reads from its body, given the member the operation's kind names the
/// other service's id in (`None`: a kind this server does not serve).
type Decode = fn(&[u8], Option<&'static str>) -> Result<OperatorAction, Vec<FieldError>>;

/// The checks every action makes, then the action `decode` reads from the body.
async fn act<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
    decode: Decode,
    needs_body: bool,
) -> HttpResponse {
    let (caller, id) = match checked(&request, &state.keys, ADMIN_WRITE, path_id).await {
        Ok(found) => found,
        Err(turned) => return turned.response(),
    };
    let body = if needs_body {
        json_body(&request, payload, state.body_timeout).await
    } else {
        optional_json_body(&request, payload, state.body_timeout).await
    };
    let body = match body {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    // A resolution is given in the operation's kind's terms: its kind is read first.
    let member = if needs_body {
        match admin(&state)
            .show_operation(AdminScope::of(&caller), id)
            .await
        {
            Ok(seen) => state.kinds.provider_id_member(&seen.operation_type),
            Err(refusal) => {
                return answered("operation read", Err::<(), _>(refusal), |()| Vec::new());
            }
        }
    } else {
        None
    };
    let action = match decode(&body, member) {
        Ok(action) => action,
        Err(errors) => return respond::problem(&Problem::invalid_body(&errors)),
    };
    let acted = admin(&state)
        .act(&admin_request(&request, &caller), id, &action)
        .await;
    answered("operator change", acted, operation_json)
}

/// A resolution in the kind's terms; a kind not served here is refused when the action is
/// judged, so any member name stands in for its own.
fn resolution(
    body: &[u8],
    member: Option<&'static str>,
) -> Result<OperatorAction, Vec<FieldError>> {
    match member {
        Some(member) => decode_resolution(body, member).map(OperatorAction::Resolve),
        None => Ok(OperatorAction::Resolve(Resolution::Declined)),
    }
}

#[utoipa::path(
    post,
    path = "/api/admin/operations/{operationId}/resolve",
    tag = "admin",
    operation_id = "adminResolveOperation",
    summary = "Resolve an operation needing review",
    description = "After a person checked the provider: `succeeded` records the payment \
        with the charge found there; `declined` frees the order for another capture. Only \
        from `needs_review`; fenced and audited.",
    security(("bearer" = ["admin:write"])),
    params(("operationId" = String, Path, description = "A hyphenated UUID.")),
    request_body(content = ResolveRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The operation as it now is.", body = AdminOperation<'static>),
        AuthRefusals,
        AdminActionRefusals,
    ),
)]
pub(crate) async fn resolve_operation<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    act(request, payload, state, resolution, true).await
}

#[utoipa::path(
    post,
    path = "/api/admin/operations/{operationId}/retry",
    tag = "admin",
    operation_id = "adminRetryOperation",
    summary = "Run an operation needing review again",
    description = "Back to `pending`, due now, attempts reset, under the same downstream \
        key. `409 key_retention_passed` once the operation is older than the provider keeps \
        keys. No body (or `{}`).",
    security(("bearer" = ["admin:write"])),
    params(("operationId" = String, Path, description = "A hyphenated UUID.")),
    request_body(content = Option<NoMembers>, content_type = "application/json"),
    responses(
        (status = 200, description = "The operation as it now is.", body = AdminOperation<'static>),
        AuthRefusals,
        AdminActionRefusals,
    ),
)]
pub(crate) async fn retry_operation<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    act(
        request,
        payload,
        state,
        |body, _| decode_nothing(body).map(|()| OperatorAction::Retry),
        false,
    )
    .await
}

#[utoipa::path(
    post,
    path = "/api/admin/operations/{operationId}/cancel",
    tag = "admin",
    operation_id = "adminCancelOperation",
    summary = "Cancel a pending operation",
    description = "Ends it `cancelled` (the order may be captured again). Under a worker's \
        live lease: `409 operation_busy` with `Retry-After`. No body (or `{}`).",
    security(("bearer" = ["admin:write"])),
    params(("operationId" = String, Path, description = "A hyphenated UUID.")),
    request_body(content = Option<NoMembers>, content_type = "application/json"),
    responses(
        (status = 200, description = "The operation as it now is.", body = AdminOperation<'static>),
        AuthRefusals,
        AdminActionRefusals,
    ),
)]
pub(crate) async fn cancel_operation<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    act(
        request,
        payload,
        state,
        |body, _| decode_nothing(body).map(|()| OperatorAction::Cancel),
        false,
    )
    .await
}
