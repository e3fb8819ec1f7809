//! What every admin route does before its use case: the token's permission, then the
//! path's id or the query, each refusal its problem; and the use cases over the app's store.

use actix_web::{HttpRequest, HttpResponse};
use application::Caller;
use application::admin::{Admin, AdminRequest, AdminScope, Who};
use application::ports::UnitOfWork;
use uuid::Uuid;

use super::strict_query::BadParameters;
use crate::SystemClock;
use crate::http::edge::auth::{Denied, TokenVerifier, authorized};
use crate::http::edge::problem::Problem;
use crate::http::edge::request_context::RequestId;
use crate::http::edge::respond;
use crate::http::route::PathIds;
use crate::http::routes::state::AppState;
use crate::leased::parse_operation_id;

/// The use cases over the app's store: the API's routes' and the on-call page's.
pub(crate) fn admin<S: UnitOfWork, H>(state: &AppState<S, H>) -> Admin<'_, S> {
    Admin {
        store: &state.store,
        kinds: &state.kinds,
        clock: &SystemClock,
        key_retention: state.key_retention,
        replay_cache: state.coordinator.replay_cache(),
    }
}

/// Why a request never reached its use case.
#[derive(Debug)]
pub(super) enum Turned {
    Denied(Denied),
    NoSuchId,
    BadQuery(BadParameters),
}

impl Turned {
    pub(super) fn response(self) -> HttpResponse {
        match self {
            Self::Denied(denied) => denied.response(),
            Self::NoSuchId => respond::problem(&Problem::not_found()),
            Self::BadQuery(errors) => respond::problem(&Problem::invalid_query(&errors.0)),
        }
    }
}

/// The token's permission, then what `read` makes of the path or the query.
pub(super) async fn checked<T>(
    request: &HttpRequest,
    keys: &TokenVerifier,
    permission: &str,
    read: impl FnOnce(&HttpRequest) -> Result<T, Turned>,
) -> Result<(Caller, T), Turned> {
    let caller = authorized(request, keys, permission)
        .await
        .map_err(Turned::Denied)?;
    Ok((caller, read(request)?))
}

pub(super) fn path_id(request: &HttpRequest) -> Result<Uuid, Turned> {
    PathIds::of(request)
        .get("operation_id")
        .and_then(parse_operation_id)
        .ok_or(Turned::NoSuchId)
}

pub(super) fn query<T>(
    parse: fn(&str) -> Result<T, BadParameters>,
) -> impl FnOnce(&HttpRequest) -> Result<T, Turned> {
    move |request| parse(request.query_string()).map_err(Turned::BadQuery)
}

pub(super) fn admin_request(request: &HttpRequest, caller: &Caller) -> AdminRequest {
    AdminRequest {
        scope: AdminScope::of(caller),
        who: Who::from(caller),
        request_id: RequestId::of(request),
    }
}
