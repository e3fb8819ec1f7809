//! The HTTP edge's pure parts: strict body decoding, the `Idempotency-Key` header and
//! problem details.
//!
//! They take bytes and header values, not framework types, so their rules are unit-tested
//! without a server.

mod body;
mod key_header;
mod problem;
mod strict_json;

pub use body::{FieldError, decode_new_order};
pub use key_header::parse_key_header;
pub use problem::{PROBLEM_JSON, Problem, ProblemField, RETRY_AFTER_SECS};
