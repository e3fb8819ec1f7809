//! The storage guarantees (`docs/storage.md`), proven against a real MySQL-compatible
//! server over real connections. Each test has a database of its own; where timing matters
//! a test runs many rounds, synchronized by the leader gate and the server's own lock-wait
//! view, never by sleeps.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod classification;
mod leader;
mod outbox_claims;
mod pool;
mod retention;
mod schema;
mod storm;
