//! When, where and how a run was made: printed above its figures and kept in its JSON,
//! so a figure is never read apart from its machine and date.

use serde::{Deserialize, Serialize};

/// The facts of one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunInfo {
    /// UTC, to the minute.
    pub(crate) date: String,
    /// `git describe --always --dirty` of the checkout.
    pub(crate) commit: String,
    /// Cores, memory, CPU model and kernel.
    pub(crate) machine: String,
    /// The command that made the run, with the settings that change it.
    pub(crate) command: String,
    /// Whether the database server was the run's own (`scripts/bench` started it): only
    /// then are its global counters this run's alone.
    pub(crate) database_private: bool,
}

impl RunInfo {
    /// This run's facts, read from the machine and the environment.
    pub(crate) fn now() -> Self {
        Self {
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            commit: git_describe().unwrap_or_else(|| "unknown".to_owned()),
            machine: machine(),
            command: command(),
            database_private: std::env::var("BENCH_DATABASE").as_deref() == Ok("private"),
        }
    }
}

fn git_describe() -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1_048_576.0);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim())
        .to_owned();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!(
        "{cores} cores ({model}), {mem_gib:.0} GiB, Linux {}",
        kernel.trim()
    )
}

/// `scripts/bench`, preceded by the settings given that change what it measures.
fn command() -> String {
    let mut parts: Vec<String> = ["BENCH_SECONDS", "BENCH_SCENARIOS", "BENCH_SERVER_LOG"]
        .into_iter()
        .filter_map(|name| Some(format!("{name}={}", std::env::var(name).ok()?)))
        .collect();
    if std::env::var_os("GALERA_URLS").is_some() {
        parts.push("BENCH_GALERA=1".to_owned());
    }
    parts.push("scripts/bench".to_owned());
    parts.join(" ")
}
