//! Support for the black-box tests: a database per test on a real MySQL-compatible
//! server, fixtures, a gate that holds a leader inside its transaction, and the
//! consistency checks every test ends with.

// Test support: a panic here is a failed test, with the message saying why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod db;
mod fixtures;
mod gate;
mod server;

pub use db::TestDb;
pub use fixtures::{caller, executed_count, join_all, key, new_order, order_id_in};
pub use gate::{GateHandle, LeaderGate};
pub use server::TestServer;
