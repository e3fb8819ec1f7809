//! The one handler of every read of a resource of the caller's tenant.

use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpRequest, HttpResponse, web};
use application::Reads;
use application::ports::{FlowHooks, UnitOfWork};

use super::AppState;
use crate::http::edge::auth::authorized;
use crate::http::edge::problem::{Problem, RETRY_AFTER_SECS};
use crate::http::edge::respond;
use crate::http::route::{GetRoute, PathIds};

pub(crate) async fn read_one<S, H, R>(
    request: HttpRequest,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse
where
    S: UnitOfWork + Reads<R> + 'static,
    H: FlowHooks + 'static,
    R: GetRoute,
{
    let caller = match authorized(&request, &state.keys, R::PERMISSION).await {
        Ok(caller) => caller,
        Err(denied) => return denied.response(),
    };
    let Some(id) = R::parse_id(&PathIds::of(&request)) else {
        return respond::problem(&Problem::not_found());
    };
    let found = Reads::<R>::read(&state.store, caller.tenant, id).await;
    respond::read(found, R::WHAT, |view, response| {
        if R::poll_again(&view) {
            response.insert_header((RETRY_AFTER, RETRY_AFTER_SECS.to_string()));
        }
        R::to_json(&view)
    })
}
