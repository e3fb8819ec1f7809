//! The single-node scenarios: each one's HTTP load on the server, and the ceiling of the
//! same SQL work, measured in the same run.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use diesel_async::AsyncMysqlConnection;
use diesel_async::pooled_connection::deadpool::Pool;
use tests::{Api, TestDb};
use tokio::runtime::Runtime;

use crate::ceiling::{self, Work};
use crate::cost::{Client, Cost, Meter};
use crate::floor;
use crate::load::{self, Request, Run};
use crate::report::{self, Measured, Scenario};
use crate::seed;

const REPLAY_KEYS: usize = 500;
const STORM_KEYS: usize = 200;
const STORM_WIDTH: usize = 64;
/// The ceiling's connections: as many as its largest concurrency.
pub(crate) const CEILING_CONNECTIONS: usize = 32;
/// Orders written for a scenario that works each order once (cancel, capture): more than
/// it can work in its phase; and its clients.
const ONCE_PER_ORDER_ORDERS: u64 = 60_000;
const ONCE_PER_ORDER_CONCURRENCY: usize = 32;
/// Captured orders for the refund scenario, and its clients.
const REFUND_ORDERS: u64 = 2_000;
const REFUND_CONCURRENCY: usize = 32;

fn distinct_keys(run: &Run) -> usize {
    run.samples
        .iter()
        .filter(|s| matches!(s.status, 200 | 201))
        .map(|s| s.key.as_str())
        .collect::<HashSet<_>>()
        .len()
}

/// A scenario of [`Bench::once_per_order`]: its name (also its orders' prefix), its
/// ceiling's work, its request of an order, and the count of orders it worked.
struct OncePerOrder {
    name: &'static str,
    work: Work,
    request: fn(u64) -> Request,
    done: &'static str,
}

/// The server a phase is sent to.
pub(crate) struct Target<'a> {
    pub(crate) base: &'a str,
    pub(crate) bearer: &'a str,
    pub(crate) pid: u32,
}

/// Everything a scenario needs.
pub(crate) struct Bench {
    pub(crate) runtime: Runtime,
    pub(crate) db: TestDb,
    pub(crate) base: String,
    pub(crate) bearer: String,
    pub(crate) pool: Pool<AsyncMysqlConnection>,
    pub(crate) duration: Duration,
    pub(crate) meter: Meter,
    pub(crate) server_pid: u32,
}

impl Bench {
    pub(crate) fn orders(&self, prefix: &str) -> usize {
        usize::try_from(
            self.runtime
                .block_on(self.db.orders_with_ref_prefix(1, prefix)),
        )
        .unwrap_or(0)
    }

    /// The ceiling's throughput and its cost per unit of work.
    pub(crate) fn ceiling(
        &self,
        label: &str,
        work: Work,
        concurrency: usize,
        keys: Vec<String>,
    ) -> Measured {
        let phase = ceiling::measure(
            &self.pool,
            label,
            work,
            concurrency,
            self.duration,
            Arc::new(keys),
        );
        let ((_, rps), cost) = self.runtime.block_on(self.meter.measure(
            Client::Bench,
            phase,
            |(units, _)| *units,
        ));
        Measured { rps, cost }
    }

    /// Runs an HTTP phase on the benchmark's runtime, with its cost per request.
    fn http(&self, phase: impl Future<Output = Run>) -> (Run, Cost) {
        self.runtime.block_on(
            self.meter
                .measure(Client::Service(self.server_pid), phase, |run| {
                    run.samples.len() as u64
                }),
        )
    }

    /// Runs the HTTP load of one scenario on the benchmark's runtime.
    pub(crate) fn load(
        &self,
        concurrency: usize,
        duration: Duration,
        next: impl Fn(usize, usize) -> Request + Send + Sync + 'static,
    ) -> (Run, Cost) {
        self.http(load::for_duration(
            &self.base,
            &self.bearer,
            concurrency,
            duration,
            Arc::new(next),
        ))
    }

    pub(crate) fn warm_up(&self) {
        let _ = self.load(8, Duration::from_secs(1), |w, i| {
            Request::create(format!("warm-{w}-{i}"))
        });
        let _ = self.runtime.block_on(ceiling::measure(
            &self.pool,
            "ceil-warm",
            Work::Create,
            8,
            Duration::from_secs(1),
            Arc::new(Vec::new()),
        ));
    }

    /// The single-insert floor at `concurrency`: a reference for the database's cost of a
    /// create, not a scenario of the service (no HTTP), reported as a row of its own.
    pub(crate) fn floor(&self, concurrency: usize) -> Scenario {
        self.runtime.block_on(floor::prepare_floor(&self.pool));
        let floor = self.ceiling(
            &format!("floor{concurrency}"),
            Work::Floor,
            concurrency,
            Vec::new(),
        );
        report::reference("floor", concurrency, floor)
    }

    /// Every request a new key.
    pub(crate) fn create(&self, concurrency: usize) -> Scenario {
        let prefix = format!("create{concurrency}-");
        let key_prefix = prefix.clone();
        let (run, cost) = self.load(concurrency, self.duration, move |w, i| {
            Request::create(format!("{key_prefix}{w}-{i}"))
        });
        let made = self.orders(&prefix);
        let roof = self.ceiling(
            &format!("ceil-create{concurrency}"),
            Work::Create,
            concurrency,
            Vec::new(),
        );
        let keys = distinct_keys(&run);
        report::scenario("create", concurrency, &run, keys, made, cost, Some(roof))
    }

    /// Retries of completed keys, answered from the replay cache. No ceiling: the database
    /// does nothing for them; `replay-no-cache` is the same load on the database path.
    pub(crate) fn replay(&self) -> Scenario {
        let target = Target {
            base: &self.base,
            bearer: &self.bearer,
            pid: self.server_pid,
        };
        self.replay_on("replay", &target, false)
    }

    /// The same retries through another server (one without the cache, one verifying with
    /// an identity provider's keys); with the point-read ceiling when its work is equal.
    pub(crate) fn replay_on(
        &self,
        name: &str,
        target: &Target<'_>,
        with_ceiling: bool,
    ) -> Scenario {
        self.retries(name, target, REPLAY_KEYS, 32, with_ceiling)
    }

    /// `clients` retrying `keys` completed keys (created first, through the server) for the
    /// phase's duration; with the ceiling's point reads of as many keys at 32 connections.
    pub(crate) fn retries(
        &self,
        name: &str,
        target: &Target<'_>,
        keys: usize,
        clients: usize,
        with_ceiling: bool,
    ) -> Scenario {
        let prefix = format!("{name}-");
        let seeds: Vec<Request> = (0..keys)
            .map(|k| Request::create(format!("{prefix}{k}")))
            .collect();
        let seeder = Api::new(target.base);
        for seed in &seeds {
            assert_eq!(
                seeder.create(target.bearer, &seed.key, &seed.body).status,
                201
            );
        }
        let replays = Arc::new(seeds);
        let load = load::for_duration(
            target.base,
            target.bearer,
            clients,
            self.duration,
            Arc::new(move |w, i| replays[(w * 7919 + i) % keys].clone()),
        );
        let (run, cost) = self.runtime.block_on(self.meter.measure(
            Client::Service(target.pid),
            load,
            |run| run.samples.len() as u64,
        ));
        let made = self.orders(&prefix);
        let roof = with_ceiling.then(|| {
            let label = format!("ceil-{name}");
            let read_keys = self
                .runtime
                .block_on(ceiling::seed(&self.pool, &label, keys));
            self.ceiling(&label, Work::Read, 32, read_keys)
        });
        report::scenario(name, clients, &run, keys, made, cost, roof)
    }

    /// 64 simultaneous requests on each key, key after key. No ceiling: the database's
    /// side of the storm is 64 contending transactions on one key per round, which no
    /// contention-free SQL loop reproduces, so a ratio against one would mislead.
    pub(crate) fn storm(&self) -> Scenario {
        let rounds: Vec<Vec<Request>> = (0..STORM_KEYS)
            .map(|k| vec![Request::create(format!("storm-{k}")); STORM_WIDTH])
            .collect();
        let (run, cost) = self.http(load::in_rounds(&self.base, &self.bearer, Arc::new(rounds)));
        let made = self.orders("storm-");
        report::scenario("storm", STORM_WIDTH, &run, STORM_KEYS, made, cost, None)
    }

    /// Cancels of active orders, each order once, under a key of its own.
    pub(crate) fn cancel(&self) -> Scenario {
        self.once_per_order(OncePerOrder {
            name: "cancel",
            work: Work::Cancel,
            request: Request::cancel,
            done: "SELECT COUNT(*) AS n FROM orders WHERE status = 'CANCELLED' \
                   AND client_order_ref LIKE 'cancel-%'",
        })
    }

    /// Capture acceptances of active orders, each order once, under a key of its own: the
    /// acceptance's cost (the order taken, the operation inserted). No worker runs, so
    /// every capture stays pending.
    pub(crate) fn capture(&self) -> Scenario {
        self.once_per_order(OncePerOrder {
            name: "capture",
            work: Work::Capture,
            request: Request::capture,
            done: "SELECT COUNT(*) AS n FROM operations \
                   WHERE operation_type = 'payments.capture.v1' AND order_id IN \
                   (SELECT id FROM orders WHERE client_order_ref LIKE 'capture-%')",
        })
    }

    /// An operation on each of many active orders once, under a key of its own. The orders
    /// (with their created events) are written by SQL beforehand, and as many again for the
    /// ceiling, which runs the operation's single design SQL on them.
    fn once_per_order(&self, scenario: OncePerOrder) -> Scenario {
        let OncePerOrder {
            name,
            work,
            request,
            done,
        } = scenario;
        let orders = Arc::new(self.runtime.block_on(seed::active_orders(
            &self.pool,
            &format!("{name}-"),
            ONCE_PER_ORDER_ORDERS,
        )));
        let (run, cost) = self.load(ONCE_PER_ORDER_CONCURRENCY, self.duration, move |w, i| {
            request(orders[(i * ONCE_PER_ORDER_CONCURRENCY + w) % orders.len()])
        });
        let done = usize::try_from(self.runtime.block_on(self.db.count(done))).unwrap_or(0);
        let keys = run
            .samples
            .iter()
            .filter(|s| matches!(s.status, 200 | 202))
            .map(|s| s.key.as_str())
            .collect::<HashSet<_>>()
            .len();
        let ceiling_orders = self.runtime.block_on(seed::active_orders(
            &self.pool,
            &format!("ceil-{name}-"),
            ONCE_PER_ORDER_ORDERS,
        ));
        let ids = ceiling_orders.iter().map(u64::to_string).collect();
        let label = format!("ceil-{name}");
        let roof = self.ceiling(&label, work, ONCE_PER_ORDER_CONCURRENCY, ids);
        report::scenario(
            name,
            ONCE_PER_ORDER_CONCURRENCY,
            &run,
            keys,
            done,
            cost,
            Some(roof),
        )
    }

    /// Refunds of 1 of captured orders spread over many orders, each under a key of its
    /// own: the acceptance's cost (the payment's read and reservation, the operation's
    /// insert). No worker runs, so every refund stays pending. Its ceiling refunds as many
    /// other captured orders the same way.
    pub(crate) fn refund(&self) -> Scenario {
        let orders = Arc::new(self.runtime.block_on(seed::captured_orders(
            &self.pool,
            "refund-",
            REFUND_ORDERS,
        )));
        let (run, cost) = self.load(REFUND_CONCURRENCY, self.duration, move |w, i| {
            let order = orders[(i * REFUND_CONCURRENCY + w) % orders.len()];
            Request::refund(order, format!("refund-{w}-{i}"))
        });
        let accepted = usize::try_from(self.runtime.block_on(self.db.count(
            "SELECT COUNT(*) AS n FROM operations WHERE operation_type = 'payments.refund.v1'",
        )))
        .unwrap_or(0);
        let keys = run
            .samples
            .iter()
            .filter(|s| s.status == 202)
            .map(|s| s.key.as_str())
            .collect::<HashSet<_>>()
            .len();
        let ceiling_orders = self.runtime.block_on(seed::captured_orders(
            &self.pool,
            "ceil-refund-",
            REFUND_ORDERS,
        ));
        let ids = ceiling_orders.iter().map(u64::to_string).collect();
        let roof = self.ceiling("ceil-refund", Work::Refund, REFUND_CONCURRENCY, ids);
        report::scenario(
            "refund",
            REFUND_CONCURRENCY,
            &run,
            keys,
            accepted,
            cost,
            Some(roof),
        )
    }

    /// 80% new keys, 20% retries of the request just before.
    pub(crate) fn mixed(&self) -> Scenario {
        let (run, cost) = self.load(32, self.duration, |w, i| {
            let n = if i % 5 == 4 { i - 1 } else { i };
            Request::create(format!("mixed-{w}-{n}"))
        });
        let made = self.orders("mixed-");
        let roof = self.ceiling("ceil-mixed", Work::Mixed, 32, Vec::new());
        let keys = distinct_keys(&run);
        report::scenario("mixed", 32, &run, keys, made, cost, Some(roof))
    }
}
