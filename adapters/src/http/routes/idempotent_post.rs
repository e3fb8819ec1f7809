//! The one handler of every idempotent `POST`: the edge's checks, the operation's decoding,
//! the coordinator, the response. An operation brings only what [`PostRoute`] asks for.

use actix_web::{HttpRequest, HttpResponse, web};
use application::Steps;
use application::ports::{FlowHooks, RecordReader, UnitOfWork};
use tracing::Instrument;

use super::AppState;
use crate::http::edge::admit::{admit, refused, respond_outcome};
use crate::http::edge::problem::Problem;
use crate::http::edge::respond;
use crate::http::route::{PathIds, PostRoute, Undecodable};

pub(crate) async fn idempotent_post<S, H, Op>(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse
where
    S: UnitOfWork<Tx: Steps<Op>> + RecordReader + 'static,
    H: FlowHooks + 'static,
    Op: PostRoute,
{
    let checks = tracing::info_span!(target: "spans", "edge checks");
    let admitted = match admit(
        &request,
        payload,
        &state.keys,
        Op::PERMISSION,
        state.body_timeout,
    )
    .instrument(checks.clone())
    .await
    {
        Ok(admitted) => admitted,
        Err(response) => return refused(response),
    };
    let input = match checks.in_scope(|| Op::decode(&PathIds::of(&request), &admitted.body)) {
        Ok(input) => input,
        Err(Undecodable::Body(errors)) => {
            return refused(respond::problem(&Problem::invalid_body(&errors)));
        }
        Err(Undecodable::NotFound) => return refused(respond::problem(&Problem::not_found())),
    };
    drop(checks);
    // A client that hangs up does not drop this future (half-closed connections are
    // allowed): the request ends and the retry replays it. Dropped anyway (a stop), the
    // open transaction rolls back with its connection, and the retry executes or replays.
    let outcome = state
        .coordinator
        .run(&Op::default(), &admitted.caller, &admitted.key, &input)
        .await;
    respond_outcome(&state.metrics, Op::NAME, &outcome)
}
