//! What the conformance suite needs from a store under test, so each case is written once
//! and runs against every store.

use std::future::Future;

use adapters::api::ServiceStore;
use application::orders::OrderCancellations;
use application::payments::RefundAcceptance;
use application::ports::RecordTx as _;
use application::ports::{
    CaptureAcceptance, InboxTx, OperationCensus, OperationReader, OperationStore, OrderReader,
    OrderRepository, OutboxRelayStore, OutboxWriter, RecordPurger, ShipmentRepository, UnitOfWork,
};
use application::{Order, order_created};
use domain::{ClientOrderRef, NewOrder, OrderId, OrderStatus, Quantity, Sku, TenantId};

/// A fresh, migrated database of one store kind, with the checks the cases make.
pub trait Backend: Sized + Send + Sync + 'static {
    /// The store the coordinator runs on.
    type Store: ServiceStore
        + RecordPurger
        + OutboxRelayStore
        + OperationStore
        + OperationCensus
        + OperationReader
        + OrderReader
        + UnitOfWork<
            Tx: InboxTx
                    + ShipmentRepository
                    + OrderRepository
                    + OutboxWriter
                    + OrderCancellations
                    + CaptureAcceptance
                    + RefundAcceptance,
        >;

    /// A fresh database; a writer waits up to 5 s for another's same-key transaction.
    fn create() -> impl Future<Output = Self> + Send {
        Self::create_with_lock_wait(5)
    }

    /// A fresh database whose writers wait at most `secs` for each other.
    fn create_with_lock_wait(secs: u32) -> impl Future<Output = Self> + Send;

    /// A fresh database migrated only up to and including the migration whose name begins
    /// with `last`, as an older version left it; `store().migrate()` runs the rest.
    fn create_migrated_through(last: &str) -> impl Future<Output = Self> + Send;

    /// Runs the migrations still pending; answers their names.
    fn migrate_rest(&self) -> impl Future<Output = Vec<String>> + Send;

    /// The store.
    fn store(&self) -> &Self::Store;

    /// The `DATABASE_URL` a server process uses for this database.
    fn server_url(&self) -> String;

    /// Ids of the orders with this reference in this tenant.
    fn order_ids(
        &self,
        tenant: u64,
        client_order_ref: &str,
    ) -> impl Future<Output = Vec<u64>> + Send;

    /// How many idempotency records exist.
    fn total_records(&self) -> impl Future<Output = i64> + Send;

    /// How many rows `table` holds (a table's name, or a name and a `WHERE` clause).
    fn count_rows(&self, table: &str) -> impl Future<Output = i64> + Send;

    /// Runs SQL that both dialects accept.
    fn run_sql(&self, sql: &str) -> impl Future<Output = ()> + Send;

    /// Makes active order `order` of `tenant` exist, with its `orders.created.v1` event,
    /// for cases that write operations of it by hand (reference `fixture-<order>`).
    fn ensure_order(&self, tenant: u64, order: u64) -> impl Future<Output = ()> + Send {
        async move {
            if self.count_rows(&format!("orders WHERE id = {order}")).await > 0 {
                return;
            }
            let created_at = "2026-01-01T00:00:00Z"
                .parse::<chrono::DateTime<chrono::Utc>>()
                .expect("a timestamp");
            let reference = format!("fixture-{order}");
            self.run_sql(&format!(
                "INSERT INTO orders (id, tenant_id, client_order_ref, sku, quantity, created_at, \
                 status, revision) VALUES ({order}, {tenant}, X'{}', X'534b552d31', 1, \
                 '2026-01-01 00:00:00', 'ACTIVE', 1)",
                crate::hex(&reference),
            ))
            .await;
            let created = Order {
                id: OrderId::new(order),
                tenant: TenantId::parse(tenant).expect("a tenant"),
                details: NewOrder {
                    client_order_ref: ClientOrderRef::parse(&reference).expect("a reference"),
                    sku: Sku::parse("SKU-1").expect("a sku"),
                    quantity: Quantity::parse(1).expect("a quantity"),
                },
                created_at,
                status: OrderStatus::Active,
                cancelled_at: None,
            };
            let mut tx = self.store().begin().await.expect("a transaction");
            tx.add_event(&order_created(uuid::Uuid::new_v4(), &created))
                .await
                .expect("the created event");
            tx.commit().await.expect("committed");
        }
    }

    /// Waits until `n` writers are queued behind a held leader.
    fn wait_for_queued_writers(&self, n: usize) -> impl Future<Output = ()> + Send;

    /// Removes the database after a passing test.
    fn finish(self) -> impl Future<Output = ()> + Send;
}

impl Backend for crate::TestDb {
    type Store = adapters::mysql::MysqlStore;

    async fn create_with_lock_wait(secs: u32) -> Self {
        Self::with_lock_wait(secs).await
    }

    async fn create_migrated_through(last: &str) -> Self {
        Self::migrated_through(&crate::TestServer::from_env(), 5, "", Some(last)).await
    }

    async fn migrate_rest(&self) -> Vec<String> {
        self.store().migrate().await.expect("migrate")
    }

    fn store(&self) -> &Self::Store {
        Self::store(self)
    }

    fn server_url(&self) -> String {
        self.url().to_owned()
    }

    async fn order_ids(&self, tenant: u64, client_order_ref: &str) -> Vec<u64> {
        Self::order_ids(self, tenant, client_order_ref).await
    }

    async fn total_records(&self) -> i64 {
        Self::total_records(self).await
    }

    async fn run_sql(&self, sql: &str) {
        Self::run_sql(self, sql).await;
    }

    async fn wait_for_queued_writers(&self, n: usize) {
        self.wait_for_lock_waiters(i64::try_from(n).unwrap_or(i64::MAX))
            .await;
    }

    async fn count_rows(&self, table: &str) -> i64 {
        self.count(&format!("SELECT COUNT(*) AS n FROM {table}"))
            .await
    }

    async fn finish(self) {
        self.drop_database().await;
    }
}
