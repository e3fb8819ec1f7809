//! The one handler of every idempotent `POST`: the edge's checks, the operation's decoding,
//! the coordinator, the response. An operation brings only what [`PostRoute`] asks for.

use actix_web::dev::{Path, Url};
use actix_web::{HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use application::{Execute, IdempotentOperation};
use serde_json::Value;
use utoipa::ToSchema;

use super::{AppState, ServiceStore};
use crate::http::edge::admit::{admit, respond_outcome};
use crate::http::edge::members::FieldError;
use crate::http::edge::problem::Problem;
use crate::http::edge::respond;

pub(crate) trait PostRoute: IdempotentOperation + Default {
    /// In actix's pattern syntax (`{order_id}`), unlike [`PostDoc::path`].
    const PATH: &'static str;
    type Request: ToSchema;
    type Answer: ToSchema;

    /// The body is already checked for size and media type.
    fn decode(path: &Path<Url>, body: &[u8]) -> Result<Self::Input, Undecodable>;

    fn describe() -> PostDoc;
}

#[derive(Debug)]
pub(crate) enum Undecodable {
    /// `400 invalid_body` with every violation.
    Body(Vec<FieldError>),
    /// A path id that cannot name anything: `404`, as for an unknown one.
    NotFound,
}

/// What the document says of one idempotent `POST` that no other shares.
#[derive(Debug, Clone)]
pub(crate) struct PostDoc {
    pub(crate) path: &'static str,
    pub(crate) operation_id: &'static str,
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    /// Follows the shared text on the checks every idempotent `POST` makes.
    pub(crate) description: &'static str,
    pub(crate) path_parameter: Option<PathParameter>,
    pub(crate) request_example: Value,
    pub(crate) status: u16,
    pub(crate) answer: &'static str,
    pub(crate) answer_example: Value,
    pub(crate) location: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct PathParameter {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) example: &'static str,
}

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
    let admitted = match admit(&request, payload, &state.keys, Op::PERMISSION).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let input = match Op::decode(request.match_info(), &admitted.body) {
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
