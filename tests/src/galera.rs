//! The 3-node Galera cluster the test command prepared (`scripts/lib/private-galera.sh`),
//! or the one `GALERA_URLS` names.

use std::path::PathBuf;
use std::process::Command;

use crate::{TestDb, TestServer};

/// Checks on Galera wait for causality, so they never miss a row another node committed.
const CAUSAL_CHECKS: &str = "SET SESSION wsrep_sync_wait = 1";

/// The cluster's three nodes.
#[derive(Debug, Clone)]
pub struct GaleraCluster {
    nodes: Vec<TestServer>,
    dir: Option<PathBuf>,
}

impl GaleraCluster {
    /// The cluster of `GALERA_URLS` (three comma-separated server URLs); `GALERA_DIR`, set
    /// for the private cluster, allows killing and restarting nodes.
    ///
    /// # Panics
    /// Loudly, with instructions, when `GALERA_URLS` is not set: never a silent skip.
    #[must_use]
    pub fn from_env() -> Self {
        let Ok(urls) = std::env::var("GALERA_URLS") else {
            panic!(
                "GALERA_URLS is not set. Run the tests with `scripts/test`, which starts a \
                 private 3-node Galera cluster (or set GALERA_URLS to three nodes' URLs)."
            );
        };
        let nodes: Vec<TestServer> = urls.split(',').map(TestServer::new).collect();
        assert_eq!(
            nodes.len(),
            3,
            "GALERA_URLS names {} nodes, not 3",
            nodes.len()
        );
        Self {
            nodes,
            dir: std::env::var_os("GALERA_DIR").map(PathBuf::from),
        }
    }

    /// A fresh, migrated database, created through node 1 and applied on every node.
    pub async fn database(&self) -> TestDb {
        let db = TestDb::on(&self.nodes[0], 5, CAUSAL_CHECKS).await;
        self.applied_everywhere(db.name()).await;
        db
    }

    /// The URL of `db` through node `n` (1..=3).
    #[must_use]
    pub fn url_on(&self, n: usize, db: &TestDb) -> String {
        self.url_of(n, db.name())
    }

    /// The URL of the database named `name` through node `n` (1..=3).
    #[must_use]
    pub fn url_of(&self, n: usize, name: &str) -> String {
        self.nodes[n - 1].url_for(name)
    }

    /// Creates an empty database (no migrations) through node 1; returns its name.
    ///
    /// # Panics
    /// When node 1 cannot be reached.
    pub async fn empty_database(&self) -> String {
        let name = format!("it_{}", uuid::Uuid::new_v4().simple());
        self.admin(&format!("CREATE DATABASE {name}")).await;
        self.applied_everywhere(&name).await;
        name
    }

    /// Waits until nodes 2 and 3 have applied everything node 1 committed so far (DDL
    /// included), so a process that connects to them next finds the database `name`: a
    /// causal read on each waits for that, then `USE` proves it.
    async fn applied_everywhere(&self, name: &str) {
        use diesel_async::{AsyncConnection, AsyncMysqlConnection, SimpleAsyncConnection};
        for node in &self.nodes[1..] {
            let mut conn = AsyncMysqlConnection::establish(&node.url_for(""))
                .await
                .expect("connect to a node");
            for sql in [
                CAUSAL_CHECKS,
                "SELECT COUNT(*) FROM information_schema.SCHEMATA",
                &format!("USE {name}"),
            ] {
                conn.batch_execute(sql)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
        }
    }

    /// Drops the database named `name` through node 1.
    ///
    /// # Panics
    /// When node 1 cannot be reached.
    pub async fn drop_database(&self, name: &str) {
        self.admin(&format!("DROP DATABASE {name}")).await;
    }

    async fn admin(&self, sql: &str) {
        use diesel_async::{AsyncConnection, AsyncMysqlConnection, SimpleAsyncConnection};
        let mut conn = AsyncMysqlConnection::establish(&self.nodes[0].url_for(""))
            .await
            .expect("connect to node 1");
        conn.batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The URL of `db` listing every node, node `first` first (the others after it in
    /// order): a process given it prefers that node and moves on while it is down.
    #[must_use]
    pub fn url_list_on(&self, first: usize, db: &TestDb) -> String {
        let single = self.url_on(first, db);
        let order = (0..3).map(|i| (first - 1 + i) % 3);
        let hosts: Vec<String> = order
            .map(|i| self.nodes[i].socket_addr().to_string())
            .collect();
        let own = self.nodes[first - 1].socket_addr().to_string();
        single.replacen(&own, &hosts.join(","), 1)
    }

    /// SIGKILLs node `n`.
    ///
    /// # Panics
    /// On a cluster the test command did not start, or when the script fails.
    pub fn kill_node(&self, n: usize) {
        self.script(&["kill9", &n.to_string()]);
    }

    /// Restarts node `n` after a kill and waits until the cluster is synced again.
    ///
    /// # Panics
    /// As [`GaleraCluster::kill_node`].
    pub fn restart_node(&self, n: usize) {
        self.script(&["restart", &n.to_string()]);
    }

    fn script(&self, args: &[&str]) {
        let dir = self
            .dir
            .as_ref()
            .expect("killing nodes needs the private cluster (GALERA_DIR)");
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/lib/private-galera.sh"
        );
        let status = Command::new("bash")
            .arg(script)
            .args(args)
            .env("GALERA_DIR", dir)
            .status()
            .unwrap();
        assert!(status.success(), "private-galera.sh {args:?} failed");
    }
}
