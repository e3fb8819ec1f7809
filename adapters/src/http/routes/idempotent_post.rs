//! The one handler of every idempotent `POST`: the edge's checks, the operation's own
//! decoding, the coordinator, and the outcome's response. An operation brings only what
//! [`PostRoute`] asks for.

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

/// An idempotent operation served by `POST`: where, how its input is read from the
/// request, and how the API document describes it.
pub(crate) trait PostRoute: IdempotentOperation + Default {
    /// Where it is served, in actix's pattern syntax.
    const PATH: &'static str;
    /// The request body's schema in the API document.
    type Request: ToSchema;
    /// The success answer's schema in the API document.
    type Answer: ToSchema;

    /// The input from the path's parameters and the body (already checked for size and
    /// media type).
    ///
    /// # Errors
    /// [`Undecodable`]: what the client sent cannot be this operation's input.
    fn decode(path: &Path<Url>, body: &[u8]) -> Result<Self::Input, Undecodable>;

    /// How the API document describes the route beyond what every idempotent `POST` shares.
    fn describe() -> PostDoc;
}

/// Why a request's path or body is not the operation's input.
#[derive(Debug)]
pub(crate) enum Undecodable {
    /// The body breaks the operation's schema: `400 invalid_body` with every violation.
    Body(Vec<FieldError>),
    /// A path id that cannot name anything: `404`, as for an unknown one.
    NotFound,
}

/// What the document says of one idempotent `POST` that no other shares.
#[derive(Debug, Clone)]
pub(crate) struct PostDoc {
    /// The path as the document spells it (`/api/orders/{orderId}/payments`).
    pub(crate) path: &'static str,
    /// The operation's id in the document (`capturePayment`).
    pub(crate) operation_id: &'static str,
    /// Its tag.
    pub(crate) tag: &'static str,
    /// One line.
    pub(crate) summary: &'static str,
    /// What it does, after the checks every idempotent `POST` makes.
    pub(crate) description: &'static str,
    /// The path's parameter, if it names a resource (a bad one is `404`).
    pub(crate) path_parameter: Option<PathParameter>,
    /// An example body.
    pub(crate) request_example: Value,
    /// The success status.
    pub(crate) status: u16,
    /// What the success means.
    pub(crate) answer: &'static str,
    /// An example success body.
    pub(crate) answer_example: Value,
    /// What the `Location` of the success names, when it has one.
    pub(crate) location: Option<&'static str>,
}

/// A parameter in the path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathParameter {
    /// Its name in the document's path.
    pub(crate) name: &'static str,
    /// What it names.
    pub(crate) description: &'static str,
    /// An example.
    pub(crate) example: &'static str,
}

/// `POST` of the operation `Op`.
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
    // Runs on this worker. A client that hangs up drops this future; an open transaction
    // is then rolled back with its connection, exactly as in a crash, and the retry
    // executes or replays.
    let outcome = state
        .coordinator
        .run(&Op::default(), &admitted.caller, &admitted.key, &input)
        .await;
    respond_outcome(&state.metrics, Op::NAME, &outcome)
}
