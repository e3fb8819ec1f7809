//! Support for the black-box tests: a database per test on a real MySQL-compatible
//! server, a private NATS server per test, fixtures, a gate that holds a leader inside its
//! transaction, the payment provider stand-in, and the consistency checks every test ends
//! with.

// Test support: a panic here is a failed test, with the message saying why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod api;
mod backend;
mod batch_log;
mod binaries;
mod chromedriver;
mod db;
mod fixtures;
mod galera;
mod gate;
mod global_status;
pub mod history;
mod identity_provider;
mod invariants;
pub mod leased;
mod nats;
mod nats_cluster;
mod nats_process;
pub mod otlp;
mod pause;
mod ports;
mod process;
mod prometheus;
mod provider;
mod proxy;
mod server;
mod service;
mod spread;
mod sqlite_db;
mod summed_metric;
mod temp_dir;
mod waits;

pub use api::{
    ALL_PERMISSIONS, Api, Reply, cancel_json, capture_json, forged_token, order_json, refund_json,
    token, token_expiring,
};
pub use backend::Backend;
pub use batch_log::BatchLog;
pub use binaries::{provider_stand_in_binary, server_binary, server_without_test_hooks_binary};
pub use chromedriver::{Chromedriver, chromium_binary};
pub use db::TestDb;
pub use fixtures::{
    batched_coordinator_on, caller, coordinator_on, create_as_tenant_1, executed_count, hex,
    join_all, key, new_order, order_id_in,
};
pub use galera::GaleraCluster;
pub use gate::{GateHandle, LeaderGate};
pub use global_status::global_status;
pub use history::{FinalState, History, assert_legal, assert_recorded_run_legal};
pub use identity_provider::{AUDIENCE, ISSUER, IdentityProvider, PUBLISHED, valid_claims};
pub use nats::{Broker, PrivateNats};
pub use nats_cluster::NatsCluster;
pub use pause::{HOLD_KEY_PREFIX, PAUSE_KEY_PREFIX, PauseDir};
pub use ports::{ReservedPort, reserve_port};
pub use process::process_cpu_time;
pub use prometheus::{ALERT_RULES, PrivatePrometheus};
pub use provider::{Controls, Counters, ProviderStandIn};
pub use proxy::{CommitFault, FaultProxy};
pub use server::{TestServer, url_via};
pub use service::{
    Service, ServiceOptions, TEST_SECRET, run_binary_in, run_command, run_command_in,
};
pub use spread::spread;
pub use sqlite_db::SqliteDb;
pub use summed_metric::summed_metric;
pub use temp_dir::TempDir;
pub use waits::{eventually, wait_for_metric, wait_until};
