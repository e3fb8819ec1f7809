//! A database of its own for every test, on the server the test command prepared.

use adapters::mysql::{MysqlConfig, MysqlStore, ServerInfo};
use application::{Caller, Coordinator, CreateRefusal, Outcome};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Binary, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};
use domain::{IdempotencyKey, NewOrder};
use tokio::sync::Mutex;

use crate::TestServer;
use crate::invariants::{
    ORDER_EVENTS_PER_TENANT, ORDERS_PER_TENANT, TenantCount, assert_orders_match_events,
};
use crate::{order_id_in, wait_until};

/// Where the suite writes what server it ran against; `scripts/test` prints it.
const ENVIRONMENT_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/test-server.txt");

/// Records the server version and settings once per test binary, so every report of a
/// run says where it happened.
fn record_environment(info: &ServerInfo) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let line = format!(
            "tests ran against: server {} | default isolation {} | innodb_lock_wait_timeout {} s (per test: set by the store)\n",
            info.version, info.isolation, info.lock_wait_timeout_secs
        );
        let _ = std::fs::write(ENVIRONMENT_FILE, line);
    });
}

/// One migrated database, its store, and an admin connection for checks.
pub struct TestDb {
    name: String,
    url: String,
    store: MysqlStore,
    admin: Mutex<AsyncMysqlConnection>,
    info: ServerInfo,
}

impl std::fmt::Debug for TestDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.context())
    }
}

#[derive(QueryableByName)]
pub(crate) struct Count {
    #[diesel(sql_type = BigInt)]
    pub(crate) n: i64,
}

#[derive(QueryableByName)]
pub(crate) struct Id {
    #[diesel(sql_type = BigInt)]
    pub(crate) id: i64,
}

/// A stored record as the checks see it.
#[derive(Debug, QueryableByName)]
pub struct RecordCheck {
    /// `PROCESSING` or `COMPLETED`.
    #[diesel(sql_type = Text)]
    pub state: String,
    /// The stored response body.
    #[diesel(sql_type = Nullable<Binary>)]
    pub response_body: Option<Vec<u8>>,
}

impl TestDb {
    /// A fresh database with the default lock wait (5 s).
    pub async fn create() -> Self {
        Self::with_lock_wait(5).await
    }

    /// A fresh, migrated database whose connections wait `secs` for row locks.
    ///
    /// # Panics
    /// When the server cannot be reached or migrations fail.
    pub async fn with_lock_wait(secs: u32) -> Self {
        Self::on(&TestServer::from_env(), secs, "").await
    }

    /// A fresh, migrated database on `server`, its checks' connection first running
    /// `session_setup` (for example a Galera node's causal reads).
    ///
    /// # Panics
    /// When the server cannot be reached or migrations fail.
    pub async fn on(server: &TestServer, secs: u32, session_setup: &str) -> Self {
        Self::migrated_through(server, secs, session_setup, None).await
    }

    /// [`Self::on`], migrated up to and including `last` only (all migrations without one).
    ///
    /// # Panics
    /// When the server cannot be reached or migrations fail.
    pub async fn migrated_through(
        server: &TestServer,
        secs: u32,
        session_setup: &str,
        last: Option<&str>,
    ) -> Self {
        let name = format!("it_{}", uuid::Uuid::new_v4().simple());
        let mut admin = AsyncMysqlConnection::establish(&server.url_for(""))
            .await
            .expect("connect to the test server");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create the test database");
        admin
            .batch_execute(&format!("USE {name}"))
            .await
            .expect("use the test database");
        if !session_setup.is_empty() {
            admin
                .batch_execute(session_setup)
                .await
                .expect("set up the checks' session");
        }
        let url = server.url_for(&name);
        let store = MysqlStore::connect(&MysqlConfig {
            url: url.clone(),
            lock_wait_timeout_secs: secs,
            max_connections: 48,
            database_timeout: std::time::Duration::from_secs(u64::from(secs) + 1),
            migration_timeout: std::time::Duration::from_secs(600),
            node_return: std::time::Duration::from_secs(60),
        })
        .await
        .expect("connect the store");
        store.migrate_through(last).await.expect("migrate");
        let info = store.server_info().await.expect("server info");
        record_environment(&info);
        Self {
            name,
            url,
            store,
            admin: Mutex::new(admin),
            info,
        }
    }

    /// The store under test.
    #[must_use]
    pub fn store(&self) -> &MysqlStore {
        &self.store
    }

    /// The database's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URL of this test's database.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A coordinator over this database with default settings.
    #[must_use]
    pub fn coordinator(&self) -> Coordinator<MysqlStore, MysqlStore> {
        crate::coordinator_on(&self.store)
    }

    /// Where the test ran, for failure messages.
    #[must_use]
    pub fn context(&self) -> String {
        format!(
            "server {} | isolation {} | innodb_lock_wait_timeout {} s | database {}",
            self.info.version, self.info.isolation, self.info.lock_wait_timeout_secs, self.name
        )
    }

    /// Runs a statement on the admin connection.
    ///
    /// # Panics
    /// When it fails.
    pub async fn run_sql(&self, sql: &str) {
        self.admin
            .lock()
            .await
            .batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// Ids of the orders with this reference in this tenant.
    pub async fn order_ids(&self, tenant: u64, client_order_ref: &str) -> Vec<u64> {
        let rows: Vec<Id> = diesel::sql_query(
            "SELECT id FROM orders WHERE tenant_id = ? AND client_order_ref = ? ORDER BY id",
        )
        .bind::<BigInt, _>(tenant as i64)
        .bind::<Binary, _>(client_order_ref.as_bytes())
        .load(&mut *self.admin.lock().await)
        .await
        .expect("query orders");
        rows.into_iter().map(|r| r.id as u64).collect()
    }

    /// How many orders of `tenant` have a reference starting with `prefix`.
    pub async fn orders_with_ref_prefix(&self, tenant: u64, prefix: &str) -> i64 {
        let row: Count = diesel::sql_query(
            "SELECT COUNT(*) AS n FROM orders WHERE tenant_id = ? AND client_order_ref LIKE ?",
        )
        .bind::<BigInt, _>(tenant as i64)
        .bind::<Binary, _>(format!("{prefix}%").into_bytes())
        .get_result(&mut *self.admin.lock().await)
        .await
        .expect("count orders by prefix");
        row.n
    }

    /// The server's version string.
    #[must_use]
    pub fn server_version(&self) -> &str {
        &self.info.version
    }

    /// How many orders the database holds.
    pub async fn total_orders(&self) -> i64 {
        self.count("SELECT COUNT(*) AS n FROM orders").await
    }

    /// How many records the database holds.
    pub async fn total_records(&self) -> i64 {
        self.count("SELECT COUNT(*) AS n FROM api_idempotency")
            .await
    }

    /// Runs a `SELECT COUNT(*) AS n ...` (or any query of one `BIGINT` column `n`).
    ///
    /// # Panics
    /// When the query fails.
    pub async fn count(&self, sql: &str) -> i64 {
        let row: Count = diesel::sql_query(sql)
            .get_result(&mut *self.admin.lock().await)
            .await
            .expect("count");
        row.n
    }

    /// The records for this caller and key (any operation).
    pub async fn records(&self, caller: &Caller, key: &IdempotencyKey) -> Vec<RecordCheck> {
        diesel::sql_query(
            "SELECT state, response_body FROM api_idempotency \
             WHERE tenant_id = ? AND actor_id = ? AND idempotency_key = ?",
        )
        .bind::<BigInt, _>(caller.tenant.get() as i64)
        .bind::<BigInt, _>(caller.actor.get() as i64)
        .bind::<Binary, _>(key.as_str().as_bytes())
        .load(&mut *self.admin.lock().await)
        .await
        .expect("query records")
    }

    /// Sessions of this database now running a record insert. While the leader is held
    /// after its own insert, these are followers blocked behind its uncommitted key.
    /// (MariaDB 10.11 does not list such a waiting insert in `INNODB_TRX`; the process
    /// list shows it as a running statement.)
    pub async fn lock_waiters(&self) -> i64 {
        let row: Count = diesel::sql_query(
            "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST \
             WHERE DB = ? AND INFO LIKE 'INSERT INTO `api\\_idempotency`%'",
        )
        .bind::<Text, _>(&self.name)
        .get_result(&mut *self.admin.lock().await)
        .await
        .expect("query lock waiters");
        row.n
    }

    /// Waits until `n` transactions of this database wait for a row lock: the observable
    /// sign that followers are queued behind the leader's uncommitted key.
    ///
    /// # Panics
    /// After 20 s without that many waiters.
    pub async fn wait_for_lock_waiters(&self, n: i64) {
        wait_until(
            std::time::Duration::from_secs(20),
            &format!("{n} lock waiters ({})", self.context()),
            || self.lock_waiters(),
            |waiting| *waiting >= n,
        )
        .await;
    }

    /// The end-of-test check: for this caller, key and order, exactly one order and one
    /// completed record exist, and the order id in the stored body, in the table and in
    /// every successful outcome agree.
    ///
    /// # Panics
    /// When they do not.
    pub async fn assert_exactly_one_order(
        &self,
        caller: &Caller,
        key: &IdempotencyKey,
        order: &NewOrder,
        outcomes: &[impl std::borrow::Borrow<Outcome<CreateRefusal>>],
    ) {
        let ctx = self.context();
        let ids = self
            .order_ids(caller.tenant.get(), order.client_order_ref.as_str())
            .await;
        assert_eq!(ids.len(), 1, "orders for the key: {ids:?} ({ctx})");
        let records = self.records(caller, key).await;
        assert_eq!(records.len(), 1, "records for the key ({ctx})");
        assert_eq!(records[0].state, "COMPLETED", "({ctx})");
        let stored = records[0]
            .response_body
            .as_deref()
            .expect("a completed record has a body");
        assert_eq!(order_id_in(stored), ids[0], "stored body vs table ({ctx})");
        for outcome in outcomes {
            if let Outcome::Executed { response, .. } | Outcome::Replayed { response, .. } =
                outcome.borrow()
            {
                assert_eq!(response.body(), stored, "returned body vs stored ({ctx})");
            }
        }
    }

    /// Drops the database (call at the end of a passing test).
    /// Checks the outbox invariant (orders = events per tenant), then removes the database.
    ///
    /// # Panics
    /// When the invariant does not hold.
    pub async fn drop_database(self) {
        let orders: Vec<TenantCount> = self.load_rows(ORDERS_PER_TENANT).await;
        let events: Vec<TenantCount> = self.load_rows(ORDER_EVENTS_PER_TENANT).await;
        assert_orders_match_events(&orders, &events, &self.context());
        self.run_sql(&format!("DROP DATABASE {}", self.name)).await;
    }

    /// Runs a query and loads its rows, for checks that need more than a count.
    ///
    /// # Panics
    /// When the query fails.
    pub async fn rows<T: QueryableByName<diesel::mysql::Mysql> + Send + 'static>(
        &self,
        sql: &str,
    ) -> Vec<T> {
        self.load_rows(sql).await
    }

    async fn load_rows<T: QueryableByName<diesel::mysql::Mysql> + Send + 'static>(
        &self,
        sql: &str,
    ) -> Vec<T> {
        diesel::sql_query(sql)
            .load(&mut *self.admin.lock().await)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}
