//! The relay's branches, with mocked ports: what it marks published, what it leaves
//! pending, and when it calls the broker at all.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod cases;
mod support;
