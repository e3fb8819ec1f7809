//! The HTTP API (`docs/http-api.md`), black-box: real `server` processes over real HTTP on
//! a real MySQL-compatible database. Each test has a database and a server process of its
//! own. Where a request must be held inside its transaction, the server's file-driven pause
//! point holds it (never a sleep).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod admin;
mod auth;
mod batches;
mod body;
mod cancel;
mod deadlines;
mod disconnects;
mod embedded;
mod hostile;
mod in_memory;
mod key;
mod openapi;
mod outcomes;
mod payments;
mod processes;
mod provider_answers;
mod reads;
mod support;
