//! The HTTP API on a 3-node MariaDB Galera cluster, one `server` process per node, over
//! real HTTP: the guarantees that hold on one database hold across nodes
//! (`docs/storage.md#several-database-nodes-galera`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod failover;
mod maintenance;
mod reads;
mod storm;
mod support;
