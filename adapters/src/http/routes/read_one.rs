//! The one handler of every read of a resource of the caller's tenant: its permission,
//! its id from the path, the store, and `200`, `404` or `503`.

use actix_web::dev::{Path, Url};
use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use application::{ReadFrom, TenantRead};
use utoipa::ToSchema;

use super::idempotent_post::PathParameter;
use super::{AppState, ServiceStore};
use crate::http::edge::auth::authorized;
use crate::http::edge::problem::{Problem, RETRY_AFTER_SECS};
use crate::http::edge::respond;

/// A read served by `GET`: where, how the path names the resource, and how the document
/// describes it.
pub(crate) trait GetRoute: TenantRead {
    /// Where it is served, in actix's pattern syntax.
    const PATH: &'static str;
    /// The answer's schema in the API document.
    type Answer: ToSchema;

    /// The id the path names; `None` when it cannot name one (`404`, as for an unknown).
    fn parse_id(path: &Path<Url>) -> Option<Self::Id>;

    /// How the API document describes the route.
    fn describe() -> GetDoc;
}

/// What the document says of one read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GetDoc {
    /// The path as the document spells it.
    pub(crate) path: &'static str,
    /// The operation's id in the document.
    pub(crate) operation_id: &'static str,
    /// Its tag.
    pub(crate) tag: &'static str,
    /// One line.
    pub(crate) summary: &'static str,
    /// What it answers, and when it answers `404`.
    pub(crate) description: &'static str,
    /// The id in the path.
    pub(crate) id: PathParameter,
    /// What the `200` holds.
    pub(crate) answer: &'static str,
    /// When the `200` carries `Retry-After`, if ever.
    pub(crate) poll_again: Option<&'static str>,
}

/// `GET` of the read `R`.
pub(crate) async fn read_one<S, H, R>(
    request: HttpRequest,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse
where
    S: ServiceStore,
    H: FlowHooks + 'static,
    R: GetRoute + ReadFrom<S>,
{
    let caller = match authorized(&request, &state.keys, R::PERMISSION) {
        Ok(caller) => caller,
        Err(denied) => return denied.response(),
    };
    let Some(id) = R::parse_id(request.match_info()) else {
        return respond::problem(&Problem::not_found());
    };
    let found = R::find(&state.store, caller.tenant, id).await;
    respond::read(found, R::WHAT, |view, response| {
        if R::poll_again(&view) {
            response.insert_header((RETRY_AFTER, RETRY_AFTER_SECS.to_string()));
        }
        R::to_json(&view)
    })
}
