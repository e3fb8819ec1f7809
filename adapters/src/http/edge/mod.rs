//! What every route checks and how it answers, written once. The pure parts take bytes,
//! not framework types, so their rules are unit-tested without a server.

pub(crate) mod admit;
pub(crate) mod auth;
pub(crate) mod body_drained;
pub(crate) mod head_guard;
pub(crate) mod key_header;
pub(crate) mod members;
pub(crate) mod problem;
pub(crate) mod refusal_form;
pub(crate) mod request_context;
mod request_framing;
pub(crate) mod respond;
pub(crate) mod strict_json;
