//! Captures end to end (`docs/long-running-operations.md`): the capture workers' lease and
//! fence under crashes, lost connections, stale owners, lost answers, provider outages, a
//! stop mid-call and a claim storm. Real MariaDB, the real provider stand-in, real `server`
//! processes (`serve` with a provider, or `server worker`), killed by PID, cut off through
//! the fault proxy, or held at the worker's `operation-charged` pause point, as a scenario
//! says. Captures are accepted by a separate `serve` process without a provider, so only
//! the processes a scenario starts ever work an operation. Nothing waits on a guess of
//! time: every wait is for a condition (a row, the stand-in's counters, a pause marker, a
//! metric, a log line).
//!
//! Every scenario ends by counting separately operations, provider charge calls, distinct
//! charges at the provider and payment rows, and checks one charge and at most one payment
//! per operation: the charge under the operation's own key, named by its one payment.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod alerts;
mod answers;
mod counts;
mod fencing;
mod heartbeat;
mod operator;
mod refunds;
mod shutdown;
mod storm;
mod support;
mod takeover;
