//! Figures per scenario: the table on stdout and `target/bench/latest.json`.

use std::collections::HashMap;

use serde::Serialize;

use crate::load::Run;

/// One scenario's figures, in the shape of `target/bench/latest.json`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) concurrency: usize,
    pub(crate) requests: usize,
    /// Responses that are not a contract outcome for the scenario, 5xx, or none at all.
    pub(crate) errors: usize,
    /// Executions beyond one per key, plus orders beyond one per executed key.
    pub(crate) duplicates: usize,
    pub(crate) rps: f64,
    pub(crate) ceiling_rps: f64,
    pub(crate) ratio: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) max_ms: f64,
}

/// The whole report.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) scenarios: Vec<Scenario>,
    pub(crate) server_peak_rss_bytes: u64,
    pub(crate) database: String,
}

/// Statuses a scenario may see: 201 (executed or replayed), 409 in progress. A 422 or
/// 5xx never belongs to these workloads (every retry repeats its request exactly).
fn is_expected(status: u16) -> bool {
    matches!(status, 201 | 409)
}

/// Figures for `run`, which used `keys` distinct keys; `orders_in_db` is how many orders
/// those keys made.
pub(crate) fn scenario(
    name: &str,
    concurrency: usize,
    run: &Run,
    keys: usize,
    orders_in_db: usize,
    ceiling_rps: f64,
) -> Scenario {
    let mut micros: Vec<u64> = run.samples.iter().map(|s| s.micros).collect();
    micros.sort_unstable();
    let at = |q: f64| -> f64 {
        if micros.is_empty() {
            return 0.0;
        }
        let index = ((micros.len() - 1) as f64 * q).round() as usize;
        micros[index] as f64 / 1000.0
    };
    let mut executed: HashMap<&str, usize> = HashMap::new();
    for sample in run
        .samples
        .iter()
        .filter(|s| s.status == 201 && !s.replayed)
    {
        *executed.entry(sample.key.as_str()).or_default() += 1;
    }
    let extra_executions: usize = executed.values().map(|n| n - 1).sum();
    let extra_orders = orders_in_db.saturating_sub(keys);
    let rps = run.samples.len() as f64 / run.elapsed.as_secs_f64();
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
        ceiling_rps,
        ratio: if ceiling_rps > 0.0 {
            rps / ceiling_rps
        } else {
            0.0
        },
        p50_ms: at(0.50),
        p99_ms: at(0.99),
        max_ms: micros.last().map_or(0.0, |m| *m as f64 / 1000.0),
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
            "| {} | {} | {} | {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.1} |\n",
            s.name,
            s.concurrency,
            s.requests,
            s.errors,
            s.duplicates,
            s.rps,
            s.ceiling_rps,
            s.ratio,
            s.p50_ms,
            s.p99_ms,
            s.max_ms
        ));
    }
    out.push_str(&format!(
        "\nserver peak RSS: {:.1} MiB\n",
        report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0)
    ));
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.as_bytes());
}

/// The targets at concurrency 32, pass or miss.
pub(crate) fn print_targets(report: &Report) {
    let ratio = |name: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.name == name && s.concurrency == 32)
            .map_or(0.0, |s| s.ratio)
    };
    let rss_mib = report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0);
    let lines = [
        (
            "create ratio >= 0.75",
            ratio("create"),
            ratio("create") >= 0.75,
        ),
        (
            "replay ratio >= 0.60",
            ratio("replay"),
            ratio("replay") >= 0.60,
        ),
        ("server peak RSS <= 64 MiB", rss_mib, rss_mib <= 64.0),
    ];
    let mut out = String::from("\ntargets (concurrency 32):\n");
    for (target, value, met) in lines {
        out.push_str(&format!(
            "  {target}: {value:.2} {}\n",
            if met { "met" } else { "MISSED" }
        ));
    }
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.as_bytes());
}
