//! Every branch of the admin use cases, with a mocked store (mockall): the judgement of an
//! operator's action, the conditional write and its retries, key eviction, and paging.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod act;
mod json;
mod keys;
#[path = "../common/no_tx.rs"]
mod no_tx;
mod pages;
mod races;
mod support;
