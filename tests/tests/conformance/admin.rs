//! The admin's store on every store (`docs/admin.md`): listings newest first through their
//! filters and cursors, operator changes under the worker's fence with one audit row each,
//! key eviction of completed records only, the last attempt's error class, and the trace
//! an operation was accepted in.

mod audit;
mod changes;
mod keys;
mod last_error;
mod listing;
mod trace;

pub(crate) use audit::audit_rows_page_newest_first_within_the_scope;
pub(crate) use changes::{
    a_cancel_frees_the_order_for_another_capture,
    a_change_is_fenced_and_a_resolved_success_pays_once,
    a_retry_makes_the_operation_due_now_under_its_key,
};
pub(crate) use keys::only_a_completed_key_is_evicted_and_its_metadata_reads_back;
pub(crate) use last_error::the_last_attempts_error_is_kept_until_a_success;
pub(crate) use listing::listings_are_newest_first_filtered_scoped_and_paged;
pub(crate) use trace::an_operation_reads_with_the_trace_id_it_was_accepted_in;

use adapters::SystemClock;
use adapters::api::ServiceStore;
use application::admin::{Admin, AuditEntry, AuditEvent, KeyAddress};
use application::leased::LeasedKinds;
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use domain::{ActorId, IdempotencyKey, Operation, TenantId};
use tests::{Backend, hex};
use uuid::Uuid;

/// When every change is made: after every row the cases insert, with microseconds.
fn now() -> DateTime<Utc> {
    at("2026-01-02 00:00:00") + TimeDelta::microseconds(123_456)
}

/// A timestamp as the cases' SQL spells it.
fn at(text: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_utc()
}

fn op(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

fn tenant(n: u64) -> TenantId {
    TenantId::parse(n).unwrap()
}

fn admin<'a, S: ServiceStore>(store: &'a S, kinds: &'a LeasedKinds<S::Tx>) -> Admin<'a, S> {
    Admin {
        store,
        kinds,
        clock: &SystemClock,
        key_retention: TimeDelta::hours(24),
        replay_cache: None,
    }
}

/// An operation row as a case wants it; [`NewOp::new`] gives the rest.
struct NewOp {
    n: u128,
    tenant: u64,
    order: u64,
    state: &'static str,
    kind: &'static str,
    generation: u64,
    created: &'static str,
}

impl NewOp {
    /// Pending capture `n` of order `n` of tenant 1, never claimed, with 3 attempts made.
    fn new(n: u128) -> Self {
        Self {
            n,
            tenant: 1,
            order: u64::try_from(n).unwrap(),
            state: "PENDING",
            kind: "payments.capture.v1",
            generation: 0,
            created: "2026-01-01 00:00:00",
        }
    }
}

/// Inserts `row` in SQL both dialects accept, and its order if missing; its downstream key
/// is `key-<n>`.
async fn insert_operation<B: Backend>(db: &B, row: &NewOp) {
    db.ensure_order(row.tenant, row.order).await;
    db.run_sql(&format!(
        "INSERT INTO operations (id, operation_type, tenant_id, order_id, input, result, \
         downstream_key, state, generation, attempts, next_attempt_at, created_at, updated_at) \
         VALUES (X'{:032x}', X'{}', {}, {}, X'{INPUT}', X'{RESULT}', X'{}', '{}', {}, 3, \
         '2026-01-01 00:00:00', '{created}', '{created}')",
        row.n,
        hex(row.kind),
        row.tenant,
        row.order,
        hex(&format!("key-{}", row.n)),
        row.state,
        row.generation,
        created = row.created,
        INPUT = hex(r#"{"amount":1500,"currency":"JPY"}"#),
        RESULT = hex(r#"{"payment":null}"#),
    ))
    .await;
}

/// A completed record of actor 3's `payments.capture.v1` under `key` in `tenant`, its
/// answer pointing to operation 7.
async fn insert_completed_key<B: Backend>(db: &B, tenant: u64, key: &str) {
    db.run_sql(&format!(
        "INSERT INTO api_idempotency (tenant_id, actor_id, operation, idempotency_key, \
         fingerprint_version, request_hash, state, response_status, response_content_type, \
         response_location, response_body, created_at, completed_at, expires_at) VALUES \
         ({tenant}, 3, X'{}', X'{}', 1, X'{}', 'COMPLETED', 202, 'application/json', \
         '/api/operations/00000000-0000-0000-0000-000000000007', X'7b7d', \
         '2026-01-01 00:00:00', '2026-01-01 00:00:01', '2026-01-02 00:00:00')",
        hex("payments.capture.v1"),
        hex(key),
        "ab".repeat(32),
    ))
    .await;
}

/// Actor 3's `payments.capture.v1` record under `key` in `tenant`.
fn key_address(tenant: u64, key: &str) -> KeyAddress {
    KeyAddress {
        tenant: TenantId::parse(tenant).unwrap(),
        actor: ActorId::parse(3).unwrap(),
        operation: Operation::parse("payments.capture.v1").unwrap(),
        key: IdempotencyKey::parse(key).unwrap(),
    }
}

/// The row read back says what the entry said, under a new id.
fn assert_event(event: &AuditEvent, entry: &AuditEntry) {
    assert_eq!(
        (
            &event.who,
            event.action.as_str(),
            event.target_kind.as_str(),
            event.target_id.as_str(),
            event.target_tenant,
            event.before.as_str(),
            event.after.as_str(),
            event.request_id.as_str(),
            event.at,
        ),
        (
            &entry.who,
            entry.action,
            entry.target.kind,
            entry.target.id.as_str(),
            entry.target.tenant,
            entry.before,
            entry.after,
            entry.request_id.as_str(),
            entry.at,
        )
    );
    assert!(event.id > 0);
}
