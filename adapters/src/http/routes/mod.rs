//! The generic handlers every route of the list (`crate::api`) is served by, the macro that
//! turns the list into routes, document and store bounds, and the state the handlers share.
//! Nothing here names an operation or a feature (`docs/adding-an-operation.md`).

pub(crate) mod document;
mod idempotent_post;
pub(crate) mod probes;
pub(crate) mod problem_types;
mod read_one;
mod served;
pub(crate) mod state;

pub(crate) use document::ApiDocument;
pub(crate) use idempotent_post::idempotent_post;
pub(crate) use problem_types::ProblemTypes;
pub(crate) use read_one::read_one;
pub(crate) use served::served;
pub use state::AppState;
