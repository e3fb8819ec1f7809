//! One trace across every process an order passes through (`docs/tracing.md`): spans
//! exported over OTLP by real server processes, collected by a receiver in the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod across_lease;
mod across_outbox;
mod admin_view;
mod batched_captures;
mod collector_down;
mod embedded;
mod request;
mod support;
