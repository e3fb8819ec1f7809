//! Every branch of the capture acceptance and worker, with mocked ports (mockall): claim,
//! the provider's answers, the result query under the same key, retry with backoff,
//! needs-review past the bound, the heartbeat and the fence.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod capture;
mod completion;
mod group;
mod lease;
#[path = "../common/no_tx.rs"]
mod no_tx;
mod refund;
mod support;
mod worker;
