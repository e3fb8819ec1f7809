//! The one handler of every read of a resource of the caller's tenant.

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

pub(crate) trait GetRoute: TenantRead {
    /// In actix's pattern syntax (`{order_id}`), unlike [`GetDoc::path`].
    const PATH: &'static str;
    type Answer: ToSchema;

    /// `None` when the path cannot name one: `404`, as for an unknown id.
    fn parse_id(path: &Path<Url>) -> Option<Self::Id>;

    fn describe() -> GetDoc;
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct GetDoc {
    pub(crate) path: &'static str,
    pub(crate) operation_id: &'static str,
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) description: &'static str,
    pub(crate) id: PathParameter,
    pub(crate) answer: &'static str,
    /// The `Retry-After` header's description, for reads that set it.
    pub(crate) poll_again: Option<&'static str>,
}

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
