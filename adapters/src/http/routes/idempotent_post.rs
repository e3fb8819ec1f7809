//! The one handler of every idempotent `POST`: the edge's checks, the operation's decoding,
//! the coordinator, the response. An operation brings only what [`PostRoute`] asks for.

use actix_web::{HttpRequest, HttpResponse, web};
use application::Execute;
use application::ports::FlowHooks;

use super::{AppState, ServiceStore};
use crate::http::edge::admit::{admit, respond_outcome};
use crate::http::edge::problem::Problem;
use crate::http::edge::respond;
use crate::http::route::{PathIds, PostRoute, Undecodable};

pub(crate) async fn idempotent_post<S, H, Op>(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse
where
    S: ServiceStore,
    H: FlowHooks + 'static,
    Op: PostRoute + Execute<S::Tx>,
{
    let admitted = match admit(
        &request,
        payload,
        &state.keys,
        Op::PERMISSION,
        state.body_timeout,
    )
    .await
    {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let input = match Op::decode(&PathIds::of(&request), &admitted.body) {
        Ok(input) => input,
        Err(Undecodable::Body(errors)) => {
            return respond::problem(&Problem::invalid_body(&errors));
        }
        Err(Undecodable::NotFound) => return respond::problem(&Problem::not_found()),
    };
    // A client that hangs up drops this future: the open transaction rolls back with its
    // connection, as in a crash, and the retry executes or replays.
    let outcome = state
        .coordinator
        .run(&Op::default(), &admitted.caller, &admitted.key, &input)
        .await;
    respond_outcome(&state.metrics, Op::NAME, &outcome)
}
