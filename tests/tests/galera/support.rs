//! Three processes on one database of the cluster, one per node.

use std::sync::{Arc, Barrier};

use tests::{
    Api, FinalState, GaleraCluster, History, PauseDir, Service, ServiceOptions, TestDb,
    assert_legal, token,
};
use tokio::sync::{Mutex, MutexGuard};

/// The tests take turns on the cluster: on two cores, seven tests with three server
/// processes each beside three nodes starve the nodes of CPU until the cluster evicts one
/// (seen in CI), and one test kills a node on purpose.
static CLUSTER: Mutex<()> = Mutex::const_new(());

/// Holds the cluster for this test alone.
pub(crate) async fn cluster_alone() -> MutexGuard<'static, ()> {
    CLUSTER.lock().await
}

/// A database on the cluster and a server process on each node.
pub(crate) struct Rig {
    pub(crate) cluster: GaleraCluster,
    pub(crate) db: TestDb,
    pub(crate) services: Vec<Service>,
    /// What the clients of [`Rig::recording`] and [`at_once`] sent and were answered.
    pub(crate) history: History,
    _alone: MutexGuard<'static, ()>,
}

impl Rig {
    /// Process `n` on node `n` alone.
    pub(crate) async fn new() -> Self {
        Self::start(|cluster, n, db| ServiceOptions::new(&cluster.url_on(n, db))).await
    }

    /// [`Rig::new`], with requests of process 1 whose keys start with `pause-` held through
    /// `pause`.
    pub(crate) async fn pausing_on_node_1(pause: &PauseDir) -> Self {
        Self::start(|cluster, n, db| ServiceOptions {
            pause_dir: (n == 1).then(|| pause.path().to_owned()),
            ..ServiceOptions::new(&cluster.url_on(n, db))
        })
        .await
    }

    /// Process `n` given every node, node `n` first, replacing its pooled connections
    /// after a second (so it goes back to its node soon after it answers again); requests
    /// with `pause-` keys are held through `pause`.
    pub(crate) async fn with_node_lists(pause: &PauseDir) -> Self {
        Self::start(|cluster, n, db| ServiceOptions {
            pause_dir: Some(pause.path().to_owned()),
            env: vec![("DATABASE_NODE_RETURN_SECS".into(), "1".into())],
            ..ServiceOptions::new(&cluster.url_list_on(n, db))
        })
        .await
    }

    async fn start(options: impl Fn(&GaleraCluster, usize, &TestDb) -> ServiceOptions) -> Self {
        let alone = cluster_alone().await;
        let cluster = GaleraCluster::from_env();
        let db = cluster.database().await;
        let services = (1..=3)
            .map(|n| Service::start(&options(&cluster, n, &db)))
            .collect();
        Self {
            cluster,
            db,
            services,
            history: History::new(),
            _alone: alone,
        }
    }

    /// The base URL of the process on node `n` (1..=3).
    pub(crate) fn url(&self, n: usize) -> String {
        self.services[n - 1].base_url().to_owned()
    }

    /// A client of the process on node `n`, recording into [`Rig::history`].
    pub(crate) fn recording(&self, n: usize) -> Api {
        Api::new(&self.url(n)).recording(&self.history)
    }

    /// Asserts the recorded history has a legal explanation in the test's database
    /// (`docs/testing.md#histories`).
    pub(crate) async fn assert_legal(&self, name: &str) {
        assert_legal(&self.history, &FinalState::read(&self.db).await, name);
    }

    /// Orders with this reference (the checks read causally).
    pub(crate) async fn orders_for(&self, reference: &str) -> Vec<u64> {
        self.db.order_ids(1, reference).await
    }

    /// Runs `sql` on the test's database (through node 1).
    pub(crate) async fn run_sql(&self, sql: &str) {
        tests::Backend::run_sql(&self.db, sql).await;
    }

    pub(crate) async fn finish(self) {
        drop(self.services);
        self.db.drop_database().await;
    }
}

/// Sends `bodies` under one key at once, request `i` to the process on node `i % 3 + 1`;
/// returns each status and `code`.
pub(crate) async fn at_once(
    rig: &Rig,
    key: &str,
    bodies: Vec<String>,
) -> Vec<(u16, Option<String>)> {
    let bearer = token(1, 1, "orders:create orders:read");
    let jobs = bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let (api, bearer, key) = (rig.recording(i % 3 + 1), bearer.clone(), key.to_owned());
            move || api.create(&bearer, &key, &body).status_code()
        })
        .collect();
    all_at_once(jobs).await
}

/// Runs every job on a thread of its own, all released at the same moment; returns their
/// results in order.
pub(crate) async fn all_at_once<T, F>(jobs: Vec<F>) -> Vec<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(move || {
        let start = Arc::new(Barrier::new(jobs.len()));
        std::thread::scope(|scope| {
            let running: Vec<_> = jobs
                .into_iter()
                .map(|job| {
                    let start = Arc::clone(&start);
                    scope.spawn(move || {
                        start.wait();
                        job()
                    })
                })
                .collect();
            running.into_iter().map(|r| r.join().unwrap()).collect()
        })
    })
    .await
    .unwrap()
}
