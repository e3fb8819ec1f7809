//! Leased operations as the conformance cases drive their ports: the kinds a worker of this
//! service reads, a capture as its acceptance writes it, and an end as a worker writes it.

use adapters::api::{LEASED_KINDS, ServiceTx};
use application::StepContext;
use application::leased::{LeasedOperation, NewOperation, RecordOf, Records};
use application::payments::{CaptureJob, CapturePayment, RefundJob, RefundPayment};
use application::ports::{DueOperation, Ending, OperationEnd, OperationStore, StoreError};
use chrono::{DateTime, Utc};
use domain::{ActorId, Amount, Currency, Lease, OrderId, Reason, TenantId};

use crate::Backend;

/// The kinds this service's workers read.
#[must_use]
pub fn served_kinds() -> Vec<&'static str> {
    LEASED_KINDS.iter().map(|(name, _)| *name).collect()
}

/// The operations due at `now`, as a worker reads them (at most 10).
///
/// # Errors
/// The store's.
pub async fn due<S: OperationStore>(
    store: &S,
    now: DateTime<Utc>,
) -> Result<Vec<DueOperation>, StoreError> {
    store.due(&served_kinds(), 10, now).await
}

/// Adds a pending capture `id` of order `order` due long ago, in SQL both dialects accept.
pub async fn add_capture<B: Backend>(db: &B, id: u128, order: u64) {
    db.ensure_order(1, order).await;
    db.run_sql(&format!(
        "INSERT INTO operations (id, operation_type, tenant_id, order_id, input, result, \
         downstream_key, state, generation, attempts, next_attempt_at, created_at, updated_at) \
         VALUES (X'{id:032x}', X'{kind}', 1, {order}, \
         X'7b22616d6f756e74223a313530302c2263757272656e6379223a224a5059227d', \
         X'7b227061796d656e74223a6e756c6c7d', X'{key}', 'PENDING', 0, 0, \
         '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
        kind = crate::hex("payments.capture.v1"),
        key = crate::hex(&format!("key-{id}")),
    ))
    .await;
}

/// A capture of `amount` JPY for order `order` of `tenant`, accepted at `at`, as its
/// acceptance writes it.
///
/// # Panics
/// On values the domain refuses (a test bug).
#[must_use]
pub fn new_capture(tenant: u64, order: u64, amount: i64, at: DateTime<Utc>) -> NewOperation {
    let job = CaptureJob {
        amount: Amount::parse(amount).expect("test amount"),
        currency: Currency::parse("JPY").expect("test currency"),
    };
    NewOperation::of::<CapturePayment>(context(tenant, at), OrderId::new(order), &job)
        .expect("a capture")
}

/// A refund of `amount` JPY of order `order`'s charge `ch_<order>`, accepted at `at`, as its
/// acceptance writes it.
///
/// # Panics
/// On values the domain refuses (a test bug).
#[must_use]
pub fn new_refund(tenant: u64, order: u64, amount: i64, at: DateTime<Utc>) -> NewOperation {
    let job = RefundJob {
        charge: format!("ch_{order}"),
        amount: Amount::parse(amount).expect("test amount"),
        currency: Currency::parse("JPY").expect("test currency"),
        reason: Reason::parse("damaged").expect("test reason"),
    };
    NewOperation::of::<RefundPayment>(context(tenant, at), OrderId::new(order), &job)
        .expect("a refund")
}

fn context(tenant: u64, at: DateTime<Utc>) -> StepContext {
    StepContext {
        tenant: TenantId::parse(tenant).expect("test tenant"),
        actor: ActorId::parse(1).expect("test actor"),
        now: at,
    }
}

/// Ends the capture `operation` as its worker does: under `lease`, with the capture's
/// record of a definite end.
///
/// # Errors
/// The store's.
pub async fn complete<S>(
    store: &S,
    operation: &DueOperation,
    lease: &Lease,
    ending: &Ending,
    attempts: u32,
    now: DateTime<Utc>,
) -> Result<bool, StoreError>
where
    S: OperationStore<Tx: ServiceTx>,
{
    complete_as::<CapturePayment, S>(store, operation, lease, ending, attempts, now).await
}

/// Ends `operation` of kind `K` as its worker does: under `lease`, with `K`'s record of a
/// definite end.
///
/// # Errors
/// The store's.
pub async fn complete_as<K, S>(
    store: &S,
    operation: &DueOperation,
    lease: &Lease,
    ending: &Ending,
    attempts: u32,
    now: DateTime<Utc>,
) -> Result<bool, StoreError>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: ServiceTx + Records<K>>,
{
    let end = OperationEnd {
        operation,
        lease,
        ending,
        attempts,
        now,
    };
    store.complete(&end, &RecordOf::<K>::new()).await
}

/// Ends the captures of `ends` together, as a worker ends a group: one transaction.
///
/// # Errors
/// The store's.
pub async fn complete_all<S>(store: &S, ends: &[OperationEnd<'_>]) -> Result<Vec<bool>, StoreError>
where
    S: OperationStore<Tx: ServiceTx>,
{
    store
        .complete_all(ends, &RecordOf::<CapturePayment>::new())
        .await
}
