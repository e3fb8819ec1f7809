//! Figures per scenario: the table on stdout and `target/bench/latest.json`.

use std::collections::HashMap;

use serde::Serialize;

use crate::cost::Cost;
use crate::load::Run;

/// One scenario's figures, in the shape of `target/bench/latest.json`.
#[derive(Debug, Clone, Serialize)]
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
    /// Absent for a scenario without a ceiling of its own (the cancel).
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

/// The whole report.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) scenarios: Vec<Scenario>,
    /// The relay scenario, when it ran.
    pub(crate) relay: Option<crate::relay::RelayFigures>,
    /// The Galera run, when a cluster was given.
    pub(crate) galera: Option<crate::galera::GaleraFigures>,
    pub(crate) server_peak_rss_bytes: u64,
    pub(crate) database: String,
    /// False when the database server's PID was not known (`DATABASE_URL` named another
    /// server): every `db_cpu_us` is then absent, not zero.
    pub(crate) database_cpu_measured: bool,
}

/// Statuses a scenario may see: 201 (executed or replayed), 409 in progress. A 422 or
/// 5xx never belongs to these workloads (every retry repeats its request exactly).
fn is_expected(status: u16) -> bool {
    matches!(status, 200 | 201 | 409)
}

/// Figures for `run`, which used `keys` distinct keys; `orders_in_db` is how many orders
/// those keys made, at `cost` per request.
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
        .filter(|s| matches!(s.status, 200 | 201) && !s.replayed)
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

/// The table.
pub(crate) fn print(report: &Report) {
    let mut out = String::new();
    out.push_str(&format!("database: {}\n\n", report.database));
    out.push_str(
        "| scenario | c | requests | errors | dup | rps | ceiling rps | ratio | p50 ms | p99 ms | max ms |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in &report.scenarios {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.0} | {} | {} | {:.2} | {:.2} | {:.1} |\n",
            s.name,
            s.concurrency,
            s.requests,
            s.errors,
            s.duplicates,
            s.rps,
            figure(s.ceiling_rps, 0),
            figure(s.ratio, 2),
            s.p50_ms,
            s.p99_ms,
            s.max_ms
        ));
    }
    out.push_str(
        "\ncost per request (ceiling: per transaction or read; db commands = `Questions`, \
         CPU = user + system):\n\n\
         | scenario | c | db commands/req | prepares/req | server CPU µs/req | db CPU µs/req \
         | ceiling db commands/tx | ceiling prepares/tx | ceiling client CPU µs/tx \
         | ceiling db CPU µs/tx |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in &report.scenarios {
        let (c, r) = (&s.cost, s.ceiling_cost.as_ref());
        out.push_str(&format!(
            "| {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} |\n",
            s.name,
            s.concurrency,
            c.db_commands,
            c.prepares,
            micros(c.client_cpu_us),
            micros(c.db_cpu_us),
            figure(r.map(|r| r.db_commands), 2),
            figure(r.map(|r| r.prepares), 2),
            r.map_or_else(|| "—".to_owned(), |r| micros(r.client_cpu_us)),
            r.map_or_else(|| "—".to_owned(), |r| micros(r.db_cpu_us)),
        ));
    }
    if !report.database_cpu_measured {
        out.push_str("(db CPU: absent, the database server's PID is unknown: BENCH_DB_PID)\n");
    }
    if let Some(relay) = &report.relay {
        out.push_str(&format!(
            "\nrelay on (a private nats-server), creates at c={}:\n\n\
             | creates | creates/s | events published/s | max outbox_pending | lag p50 ms | lag p99 ms |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: |\n\
             | {} | {:.0} | {:.0} | {} | {:.1} | {:.1} |\n",
            relay.concurrency,
            relay.creates,
            relay.creates_per_s,
            relay.published_per_s,
            relay.max_pending,
            relay.lag_p50_ms,
            relay.lag_p99_ms,
        ));
    }
    if let Some(galera) = &report.galera {
        let single = |name: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.name == name && s.concurrency == 32)
                .map_or((0.0, 0.0), |s| (s.rps, s.p99_ms))
        };
        let ((create_rps, create_p99), (replay_rps, replay_p99)) =
            (single("create"), single("replay"));
        out.push_str(&format!(
            "\nGalera, 3 nodes, 3 server processes, c={}:\n\n\
             | | creates/s | create p99 ms | replays/s | replay p99 ms | reruns after 1213 per 1000 creates | create errors |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n\
             | Galera | {:.0} | {:.1} | {:.0} | {:.1} | {:.1} | {} |\n\
             | one node, one process (above) | {create_rps:.0} | {create_p99:.1} | {replay_rps:.0} | {replay_p99:.1} | | |\n",
            galera.concurrency,
            galera.creates_per_s,
            galera.create_p99_ms,
            galera.replays_per_s,
            galera.replay_p99_ms,
            galera.retries_per_1000_creates,
            galera.create_errors,
        ));
    }
    out.push_str(&format!(
        "\nserver peak RSS: {:.1} MiB\n",
        report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0)
    ));
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.as_bytes());
}

/// `value` with `decimals`, or "—" for a scenario without it.
fn figure(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.decimals$}"))
}

/// A CPU figure in whole µs, or "absent".
fn micros(value: Option<f64>) -> String {
    value.map_or_else(|| "absent".to_owned(), |v| format!("{v:.0}"))
}

/// The targets at concurrency 32, pass or miss (absent when a figure could not be read).
pub(crate) fn print_targets(report: &Report) {
    let at32 = |name: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.name == name && s.concurrency == 32)
    };
    let ratio = |name: &str| at32(name).and_then(|s| s.ratio);
    let server_cpu = |name: &str| at32(name).and_then(|s| s.cost.client_cpu_us);
    let db_cpu_vs_ceiling = at32("create").and_then(|s| {
        let (own, ceiling) = (s.cost.db_cpu_us?, s.ceiling_cost.as_ref()?.db_cpu_us?);
        (ceiling > 0.0).then_some(own / ceiling)
    });
    let rss_mib = report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0);
    let at_least = |v: Option<f64>, min: f64| v.map(|v| (v, v >= min));
    let at_most = |v: Option<f64>, max: f64| v.map(|v| (v, v <= max));
    let lines = [
        ("create ratio >= 0.70", at_least(ratio("create"), 0.70)),
        ("replay ratio >= 0.55", at_least(ratio("replay"), 0.55)),
        (
            "server CPU per create <= 200 us",
            at_most(server_cpu("create"), 200.0),
        ),
        (
            "server CPU per replay <= 40 us",
            at_most(server_cpu("replay"), 40.0),
        ),
        (
            "db CPU per create <= 1.5x the ceiling's per transaction",
            at_most(db_cpu_vs_ceiling, 1.5),
        ),
        ("server peak RSS <= 64 MiB", at_most(Some(rss_mib), 64.0)),
    ];
    let mut out = String::from("\ntargets (concurrency 32):\n");
    for (target, figure) in lines {
        match figure {
            Some((value, met)) => out.push_str(&format!(
                "  {target}: {value:.2} {}\n",
                if met { "met" } else { "MISSED" }
            )),
            None => out.push_str(&format!("  {target}: absent\n")),
        }
    }
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.as_bytes());
}
