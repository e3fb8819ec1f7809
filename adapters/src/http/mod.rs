//! The HTTP edge's pure parts: strict body decoding and the `Idempotency-Key` header.
//!
//! They take bytes and header values, not framework types, so their rules are unit-tested
//! without a server.

mod body;
mod key_header;
mod strict_json;

pub use body::{FieldError, decode_new_order};
pub use key_header::parse_key_header;
