//! Adapters: the application's ports made real, and the HTTP edge. Driver errors never
//! leave this crate as types: each is sorted into the port's own variant (see
//! [`mysql::classify`]) and kept as its cause.

pub mod admin;
pub mod api;
mod clock;
pub mod http;
pub mod leased;
pub mod metrics;
pub mod mysql;
pub mod nats;
mod orders;
#[cfg(feature = "test-hooks")]
pub mod pause_file;
mod payments;
pub mod provider;
mod sql;
pub mod sqlite;
pub mod telemetry;

pub use clock::SystemClock;
/// The strict decoder of an order's body, for the property tests and the fuzzer.
pub use orders::decode_new_order;
