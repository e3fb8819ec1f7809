//! The HTTP edge over actix-web: the checks every route shares (`edge`), the generic
//! handlers and the macro the one list of routes (`crate::api`) is written in (`routes`),
//! and the OpenAPI document's builder (`openapi`). It names no operation.

pub(crate) mod edge;
pub mod listener;
pub(crate) mod openapi;
pub(crate) mod route;
pub(crate) mod routes;

pub use edge::auth::jwks::{
    ClaimNames, FetchError, JwksSettings, JwksSource, KeySetError, LoadError,
};
pub use edge::auth::{
    AuthError, Claims, EXP_LEEWAY_SECS, JwksVerifier, MIN_SECRET_BYTES, TokenKeys, TokenVerifier,
    WeakSecret,
};
pub use edge::key_header::parse_key_header;
pub use edge::members::FieldError;
pub use edge::problem::{PROBLEM_JSON, Problem, ProblemField, RETRY_AFTER_SECS};
pub use edge::refusal_form::{ProblemForm, ProblemForms};
pub use edge::request_context::{REQUEST_ID, request_context};
pub use edge::respond::IDEMPOTENT_REPLAYED;
pub use openapi::ApiDoc;
pub use routes::AppState;

pub use edge::admit::BODY_LIMIT_BYTES;
pub use edge::admit::IDEMPOTENCY_KEY;
