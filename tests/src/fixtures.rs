//! Small builders for test inputs.

use application::Caller;
use domain::{ActorId, ClientOrderRef, IdempotencyKey, NewOrder, Quantity, Sku, TenantId};

/// A caller of `tenant` acting as `actor`, with both order permissions.
///
/// # Panics
/// On ids the domain refuses (a test bug).
#[must_use]
pub fn caller(tenant: u64, actor: u64) -> Caller {
    Caller::new(
        TenantId::parse(tenant).expect("test tenant id"),
        ActorId::parse(actor).expect("test actor id"),
        "orders:create orders:read",
    )
}

/// A key.
///
/// # Panics
/// On a key the domain refuses (a test bug).
#[must_use]
pub fn key(raw: &str) -> IdempotencyKey {
    IdempotencyKey::parse(raw).expect("test key")
}

/// An order request.
///
/// # Panics
/// On values the domain refuses (a test bug).
#[must_use]
pub fn new_order(client_order_ref: &str, quantity: i64) -> NewOrder {
    NewOrder {
        client_order_ref: ClientOrderRef::parse(client_order_ref).expect("test ref"),
        sku: Sku::parse("SKU-1").expect("test sku"),
        quantity: Quantity::parse(quantity).expect("test quantity"),
    }
}

/// The `orderId` inside a stored order body.
///
/// # Panics
/// When the body is not an order's JSON (`docs/http-api.md#post-apiorders`).
#[must_use]
pub fn order_id_in(body: &[u8]) -> u64 {
    let value: serde_json::Value = serde_json::from_slice(body).expect("order JSON");
    value["orderId"]
        .as_str()
        .expect("orderId is a string")
        .parse()
        .expect("orderId is decimal")
}

/// Awaits every task, in order.
///
/// # Panics
/// When a task panicked.
pub async fn join_all<T>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut results = Vec::with_capacity(tasks.len());
    for task in tasks {
        results.push(task.await.expect("task panicked"));
    }
    results
}

/// How many outcomes are first executions.
#[must_use]
pub fn executed_count<R>(outcomes: &[application::Outcome<R>]) -> usize {
    outcomes
        .iter()
        .filter(|o| matches!(o, application::Outcome::Executed { .. }))
        .count()
}

/// A coordinator over `store` (for writes and reads alike) with the system clock and
/// default settings: every request its own transaction, as the storage tests of the
/// database's locks need.
#[must_use]
pub fn coordinator_on<S>(store: &S) -> application::Coordinator<S, S>
where
    S: application::ports::UnitOfWork + application::ports::RecordReader + Clone,
{
    application::Coordinator::new(
        store.clone(),
        store.clone(),
        std::sync::Arc::new(adapters::SystemClock),
        application::CoordinatorSettings::default(),
    )
}

/// [`coordinator_on`] with batching on at its default bounds, as the server runs it.
#[must_use]
pub fn batched_coordinator_on<S>(store: &S) -> application::Coordinator<S, S>
where
    S: application::ports::UnitOfWork + application::ports::RecordReader + Clone,
{
    coordinator_on(store).with_batching(std::sync::Arc::new(application::Batching::new(
        application::BatchSettings::default(),
    )))
}

/// Tenant 1's actor 1 creating one order of `reference` under key `k`: the create most
/// tests send, through any coordinator.
pub async fn create_as_tenant_1<U, R, H, F>(
    coordinator: &application::Coordinator<U, R, H, F>,
    k: &str,
    reference: &str,
) -> application::Outcome<application::CreateRefusal>
where
    U: application::ports::UnitOfWork,
    U::Tx: application::Steps<application::CreateOrder>,
    R: application::ports::RecordReader,
    H: application::ports::FlowHooks,
    F: application::RefusalForms<application::CreateRefusal>,
{
    coordinator
        .run(
            &application::CreateOrder,
            &caller(1, 1),
            &key(k),
            &new_order(reference, 1),
        )
        .await
}

/// `text` as SQL's hex literal digits (`X'...'`), which both dialects read as bytes.
#[must_use]
pub fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}
