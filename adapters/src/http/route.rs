//! What an operation's or a read's adapter brings to the HTTP edge: how its input is read
//! from the request, and how the API document describes its route. The generic handlers
//! (`routes`) and the document (`openapi`) do the rest.

use actix_web::HttpRequest;
use application::{IdempotentOperation, TenantRead};
use serde_json::Value;
use utoipa::ToSchema;

use super::edge::members::FieldError;
use super::edge::refusal_form::ProblemForm;

/// An idempotent operation served by `POST`.
pub(crate) trait PostRoute: IdempotentOperation<Refusal: ProblemForm> + Default {
    /// In actix's pattern syntax (`{order_id}`), unlike [`PostDoc::path`].
    const PATH: &'static str;
    type Request: ToSchema;
    type Answer: ToSchema;

    /// The body is already checked for size and media type.
    fn decode(path: &PathIds<'_>, body: &[u8]) -> Result<Self::Input, Undecodable>;

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
    /// Where the answer differs from its schema's own example (a cancelled order);
    /// `None` shows the schema's.
    pub(crate) answer_example: Option<Value>,
    pub(crate) location: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct PathParameter {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) example: &'static str,
}

/// A read served by `GET`.
pub(crate) trait GetRoute: TenantRead {
    /// In actix's pattern syntax (`{order_id}`), unlike [`GetDoc::path`].
    const PATH: &'static str;
    type Answer: ToSchema;

    /// `None` when the path cannot name one: `404`, as for an unknown id.
    fn parse_id(path: &PathIds<'_>) -> Option<Self::Id>;

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

/// The ids a request's path names, in one spelling only: a percent-encoded path
/// (`/api/orders/%31`) names nothing, as an unknown id. No id of this API needs an escape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathIds<'a> {
    request: &'a HttpRequest,
    canonical: bool,
}

impl<'a> PathIds<'a> {
    pub(crate) fn of(request: &'a HttpRequest) -> Self {
        Self {
            request,
            canonical: !request.uri().path().contains('%'),
        }
    }

    /// The parameter `name` of the route's pattern.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        if self.canonical {
            self.request.match_info().get(name)
        } else {
            None
        }
    }
}
