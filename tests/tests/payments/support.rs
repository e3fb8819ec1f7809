//! One scenario's world: a database, the provider stand-in, an accepting process that
//! never works an operation, the worker processes a scenario starts, and the counts every
//! scenario ends with.

use std::time::Duration;

use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use tests::{
    ALL_PERMISSIONS, Api, History, PauseDir, ProviderStandIn, Service, ServiceOptions, TestDb,
    assert_recorded_run_legal, capture_json, order_json, token, wait_until,
};

pub(crate) use crate::counts::Counts;
pub(crate) use tests::{eventually, wait_for_metric};

/// The lease of the scenarios that wait for one to run out: short, so the suite is quick.
pub(crate) const LEASE_SECS: &str = "2";

/// The worker's pause point after the provider answered and before the outcome is
/// written.
pub(crate) const CHARGED: &str = "operation-charged";

/// How long a scenario waits for anything before it fails.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

/// The amount every capture asks for.
pub(crate) const AMOUNT: u32 = 1500;

/// A scenario's world.
pub(crate) struct Scenario {
    pub(crate) db: TestDb,
    pub(crate) provider: ProviderStandIn,
    /// `server serve` without `PAYMENT_PROVIDER_URL`: it accepts captures and answers
    /// their status, and never works one.
    pub(crate) accepting: Service,
    /// A client of [`Scenario::accepting`], recording into [`Scenario::history`].
    pub(crate) api: Api,
    /// Every idempotent request the scenario's recording clients sent, and its answer.
    pub(crate) history: History,
}

/// One accepted capture.
#[derive(Debug, Clone)]
pub(crate) struct Accepted {
    /// The hyphenated operation id, as the `202` gave it.
    pub(crate) operation_id: String,
}

/// An operation's row, every column a worker writes, as text where it is a time, so that
/// two snapshots compare exactly.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub(crate) struct OperationRow {
    #[diesel(sql_type = Text)]
    pub(crate) state: String,
    #[diesel(sql_type = BigInt)]
    pub(crate) generation: i64,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) lease_owner: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) lease_expires_at: Option<String>,
    #[diesel(sql_type = Integer)]
    pub(crate) attempts: i32,
    #[diesel(sql_type = Text)]
    pub(crate) next_attempt_at: String,
    #[diesel(sql_type = Text)]
    pub(crate) updated_at: String,
    #[diesel(sql_type = Text)]
    pub(crate) downstream_key: String,
}

impl OperationRow {
    /// Asserts the row is pending at `generation` under a lease of the process `owner`
    /// (owner ids start with the holder's pid).
    ///
    /// # Panics
    /// When it is not.
    pub(crate) fn assert_pending_under(&self, generation: i64, owner: &Service) {
        assert_eq!(
            (self.state.as_str(), self.generation),
            ("PENDING", generation)
        );
        let holder = self.lease_owner.as_deref().unwrap_or_default();
        assert!(
            holder.starts_with(&format!("{}-", owner.pid())),
            "held by process {}: {self:?}",
            owner.pid()
        );
    }
}

/// A payment row.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub(crate) struct PaymentRow {
    #[diesel(sql_type = Text)]
    pub(crate) operation_id: String,
    #[diesel(sql_type = Text)]
    pub(crate) provider_charge_id: String,
}

/// The `SELECT` of an [`OperationRow`].
const OPERATION_COLUMNS: &str = "SELECT state, generation, \
     CAST(lease_owner AS CHAR) AS lease_owner, \
     CAST(lease_expires_at AS CHAR) AS lease_expires_at, attempts, \
     CAST(next_attempt_at AS CHAR) AS next_attempt_at, \
     CAST(updated_at AS CHAR) AS updated_at, \
     CAST(downstream_key AS CHAR) AS downstream_key FROM operations";

impl Scenario {
    /// A fresh database, a stand-in with no faults, and the accepting process.
    pub(crate) async fn new() -> Self {
        let db = TestDb::create().await;
        let provider = ProviderStandIn::start();
        let accepting = Service::start(&ServiceOptions::new(db.url()));
        let history = History::new();
        let api = Api::new(accepting.base_url()).recording(&history);
        Self {
            db,
            provider,
            accepting,
            api,
            history,
        }
    }

    /// Options of a process that works captures on `database_url`: this stand-in, the
    /// short lease, quick polls and backoff, one worker task; `env` on top.
    pub(crate) fn worker_options(
        &self,
        database_url: &str,
        pause: Option<&PauseDir>,
        env: &[(&str, &str)],
    ) -> ServiceOptions {
        let mut options = ServiceOptions::new(database_url);
        options.pause_dir = pause.map(|p| p.path().to_owned());
        options.env = [
            ("PAYMENT_PROVIDER_URL", self.provider.url()),
            ("OPERATION_LEASE_SECS", LEASE_SECS),
            ("PROVIDER_TIMEOUT_MS", "1500"),
            ("WORKER_POLL_MS", "50"),
            ("OPERATION_BACKOFF_MS", "100"),
            ("WORKER_CONCURRENCY", "1"),
        ]
        .iter()
        .chain(env)
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        options
    }

    /// `server serve` working captures (with its `/metrics`), once its workers started.
    pub(crate) fn serve_worker(&self, pause: Option<&PauseDir>, env: &[(&str, &str)]) -> Service {
        let service = Service::start(&self.worker_options(self.db.url(), pause, env));
        if let Err(log) = service.wait_for_log("workers started") {
            panic!("the serve process started no capture worker:\n{log}");
        }
        service
    }

    /// `server worker` on `database_url` (no HTTP, no metrics: it logs what it does).
    pub(crate) fn worker_on(
        &self,
        database_url: &str,
        pause: Option<&PauseDir>,
        env: &[(&str, &str)],
    ) -> Service {
        Service::start_command(
            &self.worker_options(database_url, pause, env),
            &["worker"],
            "workers started",
        )
    }

    /// `server worker` on the scenario's database.
    pub(crate) fn worker(&self, pause: Option<&PauseDir>, env: &[(&str, &str)]) -> Service {
        self.worker_on(self.db.url(), pause, env)
    }

    /// Creates the order `reference` and has its capture accepted, through the accepting
    /// process.
    pub(crate) fn accept(&self, reference: &str) -> Accepted {
        accept_on(&self.api, reference)
    }

    /// The status document of an operation, read through the accepting process.
    pub(crate) fn status(&self, accepted: &Accepted) -> serde_json::Value {
        let path = format!("/api/operations/{}", accepted.operation_id);
        let reply = self.api.get(&path, Some(&full_token()));
        assert_eq!(reply.status, 200, "GET {path}");
        reply.json()
    }

    /// The operation's row now.
    pub(crate) async fn operation(&self, accepted: &Accepted) -> OperationRow {
        let sql = format!(
            "{OPERATION_COLUMNS} WHERE id = UNHEX('{}')",
            accepted.operation_id.replace('-', "")
        );
        let mut rows: Vec<OperationRow> = self.db.rows(&sql).await;
        assert_eq!(rows.len(), 1, "{sql}");
        rows.remove(0)
    }

    /// The payment rows of an operation.
    pub(crate) async fn payments_of(&self, accepted: &Accepted) -> Vec<PaymentRow> {
        self.db
            .rows(&format!(
                "SELECT HEX(operation_id) AS operation_id, \
                 CAST(provider_charge_id AS CHAR) AS provider_charge_id \
                 FROM payments WHERE operation_id = UNHEX('{}')",
                accepted.operation_id.replace('-', "")
            ))
            .await
    }

    /// Polls the operation's row until `done` holds; the row then.
    ///
    /// # Panics
    /// After [`PATIENCE`], with the last row.
    pub(crate) async fn wait_for_operation(
        &self,
        accepted: &Accepted,
        what: &str,
        done: impl Fn(&OperationRow) -> bool,
    ) -> OperationRow {
        wait_until(PATIENCE, what, || self.operation(accepted), done).await
    }

    /// Waits until the operation ended (any end state); its row then.
    pub(crate) async fn wait_until_ended(&self, accepted: &Accepted) -> OperationRow {
        self.wait_for_operation(accepted, "the operation's end", |row| {
            row.state != "PENDING"
        })
        .await
    }

    /// Waits until no operation is pending.
    ///
    /// # Panics
    /// After a minute.
    pub(crate) async fn wait_until_none_pending(&self) {
        let pending = || async {
            let n = self
                .db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'PENDING'")
                .await;
            (n == 0).then_some(())
        };
        eventually(Duration::from_secs(60), pending)
            .await
            .unwrap_or_else(|| panic!("operations still pending"));
    }

    /// Stops every process and drops the database (checking orders = events).
    pub(crate) async fn finish(self) {
        drop(self.accepting);
        drop(self.provider);
        assert_recorded_run_legal(&self.history, &self.db).await;
        self.db.drop_database().await;
    }
}

/// A token of tenant 1, actor 1 with every permission.
pub(crate) fn full_token() -> String {
    token(1, 1, ALL_PERMISSIONS)
}

/// Creates the order `reference` and has its capture accepted through `api`.
pub(crate) fn accept_on(api: &Api, reference: &str) -> Accepted {
    let bearer = full_token();
    let created = api.create(&bearer, reference, &order_json(reference, "SKU-1", 1));
    assert_eq!(created.status, 201, "create {reference}");
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let key = format!("pay-{reference}");
    let accepted = api.capture(&bearer, &order, &key, &capture_json(AMOUNT, "JPY"));
    assert_eq!(accepted.status, 202, "capture {reference}");
    Accepted {
        operation_id: accepted.json()["operationId"].as_str().unwrap().to_owned(),
    }
}
