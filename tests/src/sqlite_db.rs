//! A fresh embedded-store database file per test, in a temporary directory.

use std::path::PathBuf;
use std::time::Duration;

use adapters::sqlite::{SqliteConfig, SqliteStore};
use diesel::SqliteConnection;
use diesel::sql_types::{BigInt, Binary};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
use tokio::sync::Mutex;

use crate::backend::Backend;
use crate::db::{Count, Id};
use crate::invariants::{
    ORDER_EVENTS_PER_TENANT, ORDERS_PER_TENANT, TenantCount, assert_orders_match_events,
};
use crate::wait_until;

type Admin = SyncConnectionWrapper<SqliteConnection>;

/// One migrated SQLite file, its store, and a connection for checks.
pub struct SqliteDb {
    dir: PathBuf,
    path: PathBuf,
    store: SqliteStore,
    admin: Mutex<Admin>,
}

impl std::fmt::Debug for SqliteDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SqliteDb({})", self.path.display())
    }
}

impl SqliteDb {
    /// A fresh file migrated up to and including `last` only (all migrations without one).
    async fn migrated_through(secs: u32, last: Option<&str>) -> Self {
        let dir = std::env::temp_dir().join(format!("it-sqlite-{}", uuid::Uuid::new_v4()));
        let path = dir.join("orders.sqlite3");
        let store = SqliteStore::open(&SqliteConfig {
            path: path.clone(),
            busy_timeout: Duration::from_secs(u64::from(secs)),
            max_connections: 48,
        })
        .await
        .expect("open the SQLite store");
        store
            .migrate_through(last)
            .await
            .expect("migrate the SQLite store");
        let admin = Admin::establish(path.to_str().expect("UTF-8 temp path"))
            .await
            .expect("admin connection");
        Self {
            dir,
            path,
            store,
            admin: Mutex::new(admin),
        }
    }
}

impl Backend for SqliteDb {
    type Store = SqliteStore;

    async fn create_with_lock_wait(secs: u32) -> Self {
        Self::migrated_through(secs, None).await
    }

    async fn create_migrated_through(last: &str) -> Self {
        Self::migrated_through(5, Some(last)).await
    }

    async fn migrate_rest(&self) -> Vec<String> {
        self.store
            .migrate()
            .await
            .expect("migrate the SQLite store")
    }

    fn store(&self) -> &SqliteStore {
        &self.store
    }

    fn server_url(&self) -> String {
        format!("sqlite://{}", self.path.display())
    }

    async fn order_ids(&self, tenant: u64, client_order_ref: &str) -> Vec<u64> {
        let rows: Vec<Id> = diesel::sql_query(
            "SELECT id FROM orders WHERE tenant_id = ? AND client_order_ref = ? ORDER BY id",
        )
        .bind::<BigInt, _>(i64::try_from(tenant).expect("tenant id"))
        .bind::<Binary, _>(client_order_ref.as_bytes())
        .load(&mut *self.admin.lock().await)
        .await
        .expect("query orders");
        rows.into_iter().map(|r| r.id.unsigned_abs()).collect()
    }

    async fn total_records(&self) -> i64 {
        self.count_rows("api_idempotency").await
    }

    async fn count_rows(&self, table: &str) -> i64 {
        let row: Count = diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {table}"))
            .get_result(&mut *self.admin.lock().await)
            .await
            .expect("count");
        row.n
    }

    async fn run_sql(&self, sql: &str) {
        self.admin
            .lock()
            .await
            .batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    async fn wait_for_queued_writers(&self, n: usize) {
        wait_until(
            Duration::from_secs(20),
            &format!("{n} queued writers"),
            || async { self.store.writers_waiting() },
            |waiting| *waiting >= n,
        )
        .await;
    }

    async fn finish(self) {
        let mut admin = self.admin.lock().await;
        let orders: Vec<TenantCount> = diesel::sql_query(ORDERS_PER_TENANT)
            .load(&mut *admin)
            .await
            .expect("orders per tenant");
        let events: Vec<TenantCount> = diesel::sql_query(ORDER_EVENTS_PER_TENANT)
            .load(&mut *admin)
            .await
            .expect("events per tenant");
        drop(admin);
        assert_orders_match_events(&orders, &events, &format!("{self:?}"));
        drop(self.admin);
        drop(self.store);
        let _ = tokio::fs::remove_dir_all(&self.dir).await;
    }
}
