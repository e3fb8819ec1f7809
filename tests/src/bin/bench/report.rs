//! Figures per scenario, in the shape of `target/bench/latest.json` (rendered as tables by
//! `render.rs`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::cost::Cost;
use crate::load::Run;

/// One scenario's figures, in the shape of `target/bench/latest.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) concurrency: usize,
    pub(crate) requests: usize,
    /// Responses with a status the scenario does not expect
    /// (`docs/http-api.md#outcomes-of-an-idempotent-post`), 5xx, or none at all.
    pub(crate) errors: usize,
    /// Executions beyond one per key, plus orders beyond one per executed key.
    pub(crate) duplicates: usize,
    pub(crate) rps: f64,
    /// Absent for a scenario without a ceiling of its own (the storm, the cancel).
    pub(crate) ceiling_rps: Option<f64>,
    pub(crate) ratio: Option<f64>,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) max_ms: f64,
    /// Per request, over the measured phase.
    pub(crate) cost: Cost,
    /// Per unit of the ceiling's work (a transaction or a read), over its phase.
    pub(crate) ceiling_cost: Option<Cost>,
}

/// The ceiling's throughput and cost.
#[derive(Debug, Clone)]
pub(crate) struct Measured {
    pub(crate) rps: f64,
    pub(crate) cost: Cost,
}

/// Batches seen by a server (`batch_size`), over the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Batches {
    pub(crate) batches: f64,
    pub(crate) mean_size: f64,
}

/// The whole report.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Report {
    /// When, where and how the run was made.
    pub(crate) run: crate::run_info::RunInfo,
    pub(crate) scenarios: Vec<Scenario>,
    /// The main server's batches of two or more creates, when it made any.
    #[serde(default)]
    pub(crate) create_batches: Option<Batches>,
    /// The relay scenario, when it ran.
    pub(crate) relay: Option<crate::relay::RelayFigures>,
    /// The captures end to end, when they ran.
    #[serde(default)]
    pub(crate) captures: Option<crate::captures::CaptureFigures>,
    /// The embedded store's creates, when it ran.
    #[serde(default)]
    pub(crate) embedded: Option<crate::embedded::EmbeddedFigures>,
    /// What tracing costs, when the build without it was given.
    #[serde(default)]
    pub(crate) tracing: Option<crate::tracing_cost::TracingFigures>,
    /// The Galera run, when a cluster was given.
    pub(crate) galera: Option<crate::galera::GaleraFigures>,
    pub(crate) server_peak_rss_bytes: u64,
    pub(crate) database: String,
    /// False when the database server's PID was not known (`DATABASE_URL` named another
    /// server): every `db_cpu_us` is then absent, not zero.
    pub(crate) database_cpu_measured: bool,
}

impl Report {
    /// The parts of the run with an error or a duplicate: any one fails the run.
    pub(crate) fn failures(&self) -> Vec<String> {
        let mut wrong: Vec<String> = self
            .scenarios
            .iter()
            .filter(|s| s.errors > 0 || s.duplicates > 0)
            .map(|s| format!("{} c={}", s.name, s.concurrency))
            .collect();
        if self.relay.as_ref().is_some_and(|r| r.errors > 0) {
            wrong.push("relay".to_owned());
        }
        if self.captures.as_ref().is_some_and(|c| c.errors > 0) {
            wrong.push("captures".to_owned());
        }
        if self.embedded.as_ref().is_some_and(|e| e.errors > 0) {
            wrong.push("embedded".to_owned());
        }
        if self.tracing.as_ref().is_some_and(|t| t.errors > 0) {
            wrong.push("tracing".to_owned());
        }
        if self
            .galera
            .as_ref()
            .is_some_and(|g| g.create_errors > 0 || g.replay_errors > 0)
        {
            wrong.push("galera".to_owned());
        }
        wrong
    }
}

/// Statuses a scenario may see: 201 or 202 (executed or replayed), 409 in progress. A 422 or
/// 5xx never belongs to these workloads (every retry repeats its request exactly).
fn is_expected(status: u16) -> bool {
    matches!(status, 200..=202 | 409)
}

/// Figures for `run`, which used `keys` distinct keys; `orders_in_db` is how many orders
/// those keys made, at `cost` per request.
/// A reference measured without the service (the single-insert floor): its throughput and
/// cost per unit, in a scenario's shape, with no requests of its own to check.
pub(crate) fn reference(name: &str, concurrency: usize, measured: Measured) -> Scenario {
    Scenario {
        name: name.to_owned(),
        concurrency,
        requests: 0,
        errors: 0,
        duplicates: 0,
        rps: measured.rps,
        ceiling_rps: None,
        ratio: None,
        p50_ms: 0.0,
        p99_ms: 0.0,
        max_ms: 0.0,
        cost: measured.cost,
        ceiling_cost: None,
    }
}

pub(crate) fn scenario(
    name: &str,
    concurrency: usize,
    run: &Run,
    keys: usize,
    orders_in_db: usize,
    cost: Cost,
    ceiling: Option<Measured>,
) -> Scenario {
    let mut executed: HashMap<&str, usize> = HashMap::new();
    for sample in run
        .samples
        .iter()
        .filter(|s| matches!(s.status, 200..=202) && !s.replayed)
    {
        *executed.entry(sample.key.as_str()).or_default() += 1;
    }
    let extra_executions: usize = executed.values().map(|n| n - 1).sum();
    let extra_orders = orders_in_db.saturating_sub(keys);
    let rps = run.rps();
    Scenario {
        name: name.to_owned(),
        concurrency,
        requests: run.samples.len(),
        errors: run
            .samples
            .iter()
            .filter(|s| !is_expected(s.status))
            .count(),
        duplicates: extra_executions + extra_orders,
        rps,
        ceiling_rps: ceiling.as_ref().map(|c| c.rps),
        ratio: ceiling
            .as_ref()
            .and_then(|c| (c.rps > 0.0).then(|| rps / c.rps)),
        p50_ms: run.latency_ms(0.50),
        p99_ms: run.latency_ms(0.99),
        max_ms: run.latency_ms(1.0),
        cost,
        ceiling_cost: ceiling.map(|c| c.cost),
    }
}
