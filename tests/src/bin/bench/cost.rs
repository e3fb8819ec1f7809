//! What a measured phase cost: the database server's own statement counters (`SHOW GLOBAL
//! STATUS`, global to the server: the run's alone only on a server of its own, which the
//! output states) and the CPU time of the service and database processes from `/proc`,
//! read just before and just after the phase.

use std::collections::HashMap;
use std::time::Duration;

use diesel_async::{AsyncConnection, AsyncMysqlConnection};
use serde::{Deserialize, Serialize};
use tests::{global_status, process_cpu_time};
use tokio::sync::Mutex;

/// The counters read, in the order of [`Counters`].
const NAMES: [&str; 5] = [
    "Questions",
    "Com_stmt_prepare",
    "Com_stmt_execute",
    "Com_begin",
    "Com_commit",
];

/// One reading of everything the phase is charged with.
struct Reading {
    counters: HashMap<String, u64>,
    /// The process doing the client side of the work: the service for HTTP phases, the
    /// benchmark itself for the ceiling's (it runs in-process).
    client_cpu: Option<Duration>,
    db_cpu: Option<Duration>,
}

/// Reads the counters on a connection of its own, and the CPU of the database server
/// process when its PID is known (`BENCH_DB_PID`, exported by `scripts/bench` for its
/// private server; absent when `DATABASE_URL` names another server).
pub(crate) struct Meter {
    admin: Mutex<AsyncMysqlConnection>,
    db_pid: Option<u32>,
}

/// Where the client-side CPU of a phase is read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Client {
    /// The server process, by PID (HTTP phases).
    Service(u32),
    /// This process: the ceiling runs in it (beside the idle load generator).
    Bench,
}

impl Client {
    fn cpu(self) -> Option<Duration> {
        process_cpu_time(match self {
            Self::Service(pid) => pid,
            Self::Bench => std::process::id(),
        })
    }
}

/// A phase's cost per request (or per unit of the ceiling's work).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Cost {
    /// `Questions`: statements the database ran (executions and text queries such as
    /// `BEGIN`, not prepares).
    pub(crate) db_commands: f64,
    /// `Com_stmt_prepare`.
    pub(crate) prepares: f64,
    /// `Com_stmt_execute`.
    pub(crate) executes: f64,
    /// `Com_begin`.
    pub(crate) begins: f64,
    /// `Com_commit`.
    pub(crate) commits: f64,
    /// User plus system CPU of the client-side process (the server, or the benchmark
    /// process for the ceiling), µs.
    pub(crate) client_cpu_us: Option<f64>,
    /// User plus system CPU of the database server process, µs; `None` when its PID is
    /// unknown.
    pub(crate) db_cpu_us: Option<f64>,
}

impl Meter {
    pub(crate) async fn connect(url: &str) -> Self {
        let admin = AsyncMysqlConnection::establish(url)
            .await
            .expect("admin connection for the counters");
        let db_pid = std::env::var("BENCH_DB_PID")
            .ok()
            .and_then(|pid| pid.trim().parse().ok())
            .filter(|pid| process_cpu_time(*pid).is_some());
        Self {
            admin: Mutex::new(admin),
            db_pid,
        }
    }

    /// Whether the database server's CPU is read (its PID is known and alive).
    pub(crate) fn measures_database_cpu(&self) -> bool {
        self.db_pid.is_some()
    }

    async fn counters(&self) -> HashMap<String, u64> {
        global_status(&mut *self.admin.lock().await, &NAMES).await
    }

    /// Runs `phase` and returns its result with its cost divided by `units(&result)`.
    /// The counters are read outside the CPU window (before it opens, after it closes),
    /// and the reading's own statement is subtracted from the counters.
    pub(crate) async fn measure<T>(
        &self,
        client: Client,
        phase: impl Future<Output = T>,
        units: impl FnOnce(&T) -> u64,
    ) -> (T, Cost) {
        let before = Reading {
            counters: self.counters().await,
            client_cpu: client.cpu(),
            db_cpu: self.db_pid.and_then(process_cpu_time),
        };
        let result = phase.await;
        let client_cpu = client.cpu();
        let db_cpu = self.db_pid.and_then(process_cpu_time);
        let after = Reading {
            counters: self.counters().await,
            client_cpu,
            db_cpu,
        };
        let cost = per_unit(&before, &after, units(&result));
        (result, cost)
    }
}

fn per_unit(before: &Reading, after: &Reading, units: u64) -> Cost {
    let n = units.max(1) as f64;
    let delta = |name: &str| {
        // The SHOW that read `after` counts itself (one statement: prepared and executed,
        // as diesel runs `sql_query`); the one that read `before` counted itself already.
        let own = u64::from(matches!(
            name,
            "Questions" | "Com_stmt_prepare" | "Com_stmt_execute"
        ));
        let (a, b) = (
            after.counters.get(name).copied().unwrap_or(0),
            before.counters.get(name).copied().unwrap_or(0),
        );
        a.saturating_sub(b).saturating_sub(own) as f64 / n
    };
    let cpu = |a: Option<Duration>, b: Option<Duration>| {
        Some(a?.saturating_sub(b?).as_secs_f64() * 1e6 / n)
    };
    Cost {
        db_commands: delta("Questions"),
        prepares: delta("Com_stmt_prepare"),
        executes: delta("Com_stmt_execute"),
        begins: delta("Com_begin"),
        commits: delta("Com_commit"),
        client_cpu_us: cpu(after.client_cpu, before.client_cpu),
        db_cpu_us: cpu(after.db_cpu, before.db_cpu),
    }
}
