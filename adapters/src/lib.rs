//! Adapters: the application's ports made real.
//!
//! Error types: driver errors (`diesel::result::Error`, pool errors) never leave this
//! crate; each is sorted here into the port's own variant (see [`mysql::classify`]).

pub mod http;
pub mod mysql;
pub mod nats;
pub mod pause_file;
pub mod provider;
mod sql;
pub mod sqlite;
