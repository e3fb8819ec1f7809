//! One rig per scenario: a database, a broker, a pause directory, and the processes.

use std::future::Future;
use std::time::Duration;

use tests::{
    Broker, History, NatsCluster, PauseDir, PrivateNats, ProviderStandIn, Service, ServiceOptions,
    TestDb, assert_recorded_run_legal, cancel_json, order_json, spread, token, wait_until,
};

/// A scenario's world: on a single NATS server unless it says otherwise.
pub(crate) struct Rig<B = PrivateNats> {
    pub(crate) db: TestDb,
    pub(crate) nats: B,
    pub(crate) pause: PauseDir,
    /// Every idempotent request the scenario's clients sent, and its answer.
    pub(crate) history: History,
}

/// What the scenario's counts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) orders: i64,
    pub(crate) events: i64,
    pub(crate) published: i64,
    pub(crate) attempts: i64,
    pub(crate) shipments: i64,
    pub(crate) shipped_orders: i64,
}

impl Rig {
    pub(crate) async fn new() -> Self {
        Self {
            db: TestDb::create().await,
            nats: PrivateNats::start(),
            pause: PauseDir::new(),
            history: History::new(),
        }
    }
}

impl Rig<NatsCluster> {
    /// On a private 3-node JetStream cluster, the stream kept on every node.
    pub(crate) async fn clustered() -> Self {
        Self {
            db: TestDb::create().await,
            nats: NatsCluster::start(),
            pause: PauseDir::new(),
            history: History::new(),
        }
    }
}

impl<B: Broker> Rig<B> {
    /// Options for any of the processes, with `env` on top of the rig's.
    pub(crate) fn options(&self, env: &[(&str, &str)]) -> ServiceOptions {
        self.options_on(self.db.url(), env)
    }

    /// [`Rig::options`] on another database URL (through a fault proxy).
    pub(crate) fn options_on(&self, database_url: &str, env: &[(&str, &str)]) -> ServiceOptions {
        let mut options = ServiceOptions::new(database_url);
        options.pause_dir = Some(self.pause.path().to_owned());
        options.env = self
            .nats
            .env()
            .into_iter()
            .chain(
                [("OUTBOX_POLL_MS", "20"), ("CONSUMER_ACK_WAIT_MS", "1000")]
                    .iter()
                    .chain(env)
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            )
            .collect();
        options
    }

    /// `server serve`, relaying.
    pub(crate) fn serve(&self, env: &[(&str, &str)]) -> Service {
        let service = Service::start(&self.options(env));
        service.wait_for_log("relay started").unwrap();
        service
    }

    /// `server serve` working captures and refunds at `provider`, relaying nothing (no
    /// broker in its settings): short leases, quick polls, four worker tasks; `env` on top.
    pub(crate) fn working(&self, provider: &ProviderStandIn, env: &[(&str, &str)]) -> Service {
        let mut options = ServiceOptions::new(self.db.url());
        options.env = [
            ("PAYMENT_PROVIDER_URL", provider.url()),
            ("OPERATION_LEASE_SECS", "2"),
            ("PROVIDER_TIMEOUT_MS", "1500"),
            ("WORKER_POLL_MS", "20"),
            ("OPERATION_BACKOFF_MS", "100"),
            ("WORKER_CONCURRENCY", "4"),
        ]
        .iter()
        .chain(env)
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let service = Service::start(&options);
        if let Err(log) = service.wait_for_log("workers started") {
            panic!("the process started no worker:\n{log}");
        }
        service
    }

    /// `server consume shipments`.
    pub(crate) fn consumer(&self) -> Service {
        Service::start_command(
            &self.options(&[]),
            &["consume", "shipments"],
            "consumer started",
        )
    }

    /// The counts, each on its own.
    pub(crate) async fn counts(&self) -> Counts {
        let db = &self.db;
        Counts {
            orders: db.count("SELECT COUNT(*) AS n FROM orders").await,
            events: db.count("SELECT COUNT(*) AS n FROM outbox").await,
            published: db
                .count("SELECT COUNT(*) AS n FROM outbox WHERE published_at IS NOT NULL")
                .await,
            attempts: db
                .count("SELECT CAST(COALESCE(SUM(attempts), 0) AS SIGNED) AS n FROM outbox")
                .await,
            shipments: db.count("SELECT COUNT(*) AS n FROM shipments").await,
            shipped_orders: db
                .count("SELECT COUNT(DISTINCT order_id) AS n FROM shipments")
                .await,
        }
    }

    /// Polls the counts until `done` holds (the processes work on their own time).
    ///
    /// # Panics
    /// After 90 s, with the last counts.
    pub(crate) async fn wait_for(&self, what: &str, done: impl Fn(&Counts) -> bool) -> Counts {
        wait_until(Duration::from_secs(90), what, || self.counts(), done).await
    }

    /// Waits until the outbox holds no unpublished event.
    ///
    /// # Panics
    /// After `patience`.
    pub(crate) async fn wait_until_published(&self, patience: Duration) {
        wait_until(
            patience,
            "every event published",
            || async {
                self.db
                    .count("SELECT COUNT(*) AS n FROM outbox WHERE published_at IS NULL")
                    .await
            },
            |pending| *pending == 0,
        )
        .await;
    }

    /// Waits until every order's event is published and shipped, then checks the
    /// invariants; returns the messages in the stream.
    pub(crate) async fn assert_settled(&self, orders: i64) -> u64 {
        let counts = self
            .wait_for("every event published and shipped", |c| {
                c.published == c.events && c.shipments == c.orders
            })
            .await;
        eprintln!(
            "counts: {counts:?}, stream messages: {}",
            self.nats.stream_messages("ORDERS")
        );
        assert_eq!(counts.orders, orders, "{counts:?}");
        assert_eq!(counts.events, counts.orders, "orders = events");
        assert_eq!(counts.published, counts.events, "every event published");
        assert_eq!(counts.shipments, counts.orders, "shipments = orders");
        assert_eq!(
            counts.shipped_orders, counts.shipments,
            "one shipment per order"
        );
        self.nats.stream_messages("ORDERS")
    }

    /// Checks what the scenario recorded, if anything, against the database
    /// (`docs/testing.md#histories`), then removes the database (checking the per-tenant
    /// invariant once more).
    pub(crate) async fn finish(self) {
        assert_recorded_run_legal(&self.history, &self.db).await;
        self.db.drop_database().await;
    }
}

/// Sends `n` creates spread over `base_urls`, `threads` at a time, recorded in
/// `history`; returns each status.
pub(crate) fn create_orders(
    history: &History,
    base_urls: &[String],
    prefix: &str,
    n: usize,
    threads: usize,
) -> impl Future<Output = Vec<u16>> + Send + 'static {
    let prefix = prefix.to_owned();
    let bearer = token(1, 1, "orders:create orders:read");
    let history = history.clone();
    spread(base_urls.to_vec(), n, threads, move |api, i| {
        let api = &api.recording(&history);
        let reference = format!("{prefix}-{i}");
        vec![
            api.create(&bearer, &reference, &order_json(&reference, "SKU-1", 1))
                .status,
        ]
    })
}

/// Creates `n` orders and cancels each as soon as its create answered, recorded in
/// `history`; returns both statuses of every order.
pub(crate) fn create_and_cancel_orders(
    history: &History,
    base_urls: &[String],
    prefix: &str,
    n: usize,
    threads: usize,
) -> impl Future<Output = Vec<u16>> + Send + 'static {
    let prefix = prefix.to_owned();
    let bearer = token(1, 1, "orders:create orders:read orders:cancel");
    let history = history.clone();
    spread(base_urls.to_vec(), n, threads, move |api, i| {
        let api = &api.recording(&history);
        let reference = format!("{prefix}-{i}");
        let created = api.create(&bearer, &reference, &order_json(&reference, "SKU-1", 1));
        let Some(id) = created.json()["orderId"].as_str().map(str::to_owned) else {
            return vec![created.status];
        };
        let cancelled = api.cancel(&bearer, &id, &format!("c-{reference}"), &cancel_json("x"));
        vec![created.status, cancelled.status]
    })
}
