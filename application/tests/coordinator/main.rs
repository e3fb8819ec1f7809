//! Every branch of the coordinator, with mocked ports (mockall). These prove the flow's
//! decisions; the database's own guarantees are proven against a real server in `tests/`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion
mod batch_harness;
mod batches;
mod cancel;
mod deadlocks;
mod default_authorizer;
mod doubles;
mod duplicates;
mod execution;
mod failures;
mod in_memory;
mod inbox;
mod purge;
mod second_operation;
mod step_failures;
mod stored_refusals;
mod support;
