//! An operator's writes: conditional like a worker's (`docs/admin.md#fencing`), each
//! answering by its row count whether the row was still as the operator saw it.

use application::admin::{AuditEntry, ChangeOutcome, KeyAddress, OperationChange};
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::result::{DatabaseErrorKind, Error};
use diesel_async::RunQueryDsl;

use super::audit_rows::NewAuditRow;
use crate::leased::fenced::unleased;
use crate::orders::TakeActiveOrder;
use crate::sql::bad_value::OutOfRange;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::rows::{COMPLETED, to_i64};
use crate::sql::schema::{api_idempotency, audit_events, operations};

/// The operator's change: the new state under the next generation, no owner, `attempts`,
/// and due at `now` (read only after a retry). Made only on the row as the operator saw it.
#[dsl::auto_type]
fn change_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    next: i64,
    to: &'static str,
    attempts: i32,
    now: NaiveDateTime,
) -> _ {
    let no_owner: Option<Vec<u8>> = None;
    let no_expiry: Option<NaiveDateTime> = None;
    dsl::update({
        let target: unleased = unleased(id, state, generation, now);
        target
    })
    .set((
        operations::state.eq(to),
        operations::generation.eq(next),
        operations::lease_owner.eq(no_owner),
        operations::lease_expires_at.eq(no_expiry),
        operations::attempts.eq(attempts),
        operations::next_attempt_at.eq(now),
        operations::updated_at.eq(now),
    ))
}

#[dsl::auto_type]
fn completed_record(
    tenant: i64,
    actor: i64,
    operation: Vec<u8>,
    key: Vec<u8>,
    completed: &'static str,
) -> _ {
    dsl::delete(
        api_idempotency::table.filter(
            api_idempotency::tenant_id
                .eq(tenant)
                .and(api_idempotency::actor_id.eq(actor))
                .and(api_idempotency::operation.eq(operation))
                .and(api_idempotency::idempotency_key.eq(key))
                .and(api_idempotency::state.eq(completed)),
        ),
    )
}

fn changed_one(rows: usize) -> bool {
    rows == 1
}

/// The operation's row only (the caller adds the kind's record and the audit row), then,
/// for a change that [takes the order](OperationChange::takes_order), the order: in that
/// order, as a worker ending the operation locks them, so the two never deadlock. A unique
/// violation is a kind's rule about the order's operations (one active capture per order).
pub(crate) async fn change_operation<C>(
    conn: &mut C,
    change: &OperationChange<'_>,
) -> Result<ChangeOutcome, StoreError>
where
    C: SqlConnection,
    change_statement: QueryFragment<C::Backend> + QueryId,
    TakeActiveOrder: QueryFragment<C::Backend>,
{
    let seen = to_i64(change.seen_generation.get())?;
    let changed = change_statement(
        change.id.as_bytes().to_vec(),
        change.seen_state.as_stored(),
        seen,
        seen.checked_add(1).ok_or(OutOfRange("generation"))?,
        change.action.ends_in().as_stored(),
        i32::try_from(change.attempts).map_err(|_| OutOfRange("attempts"))?,
        change.now.naive_utc(),
    )
    .execute(conn)
    .await;
    match changed {
        Ok(rows) if changed_one(rows) => {}
        Ok(_) => return Ok(ChangeOutcome::Stale),
        Err(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
            return Ok(ChangeOutcome::Conflict);
        }
        Err(error) => return Err(C::Backend::store_error(error)),
    }
    if change.takes_order() {
        let (tenant, order) = change.order;
        let taken = TakeActiveOrder {
            tenant: to_i64(tenant.get())?,
            order: to_i64(order.get())?,
        }
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
        if taken == 0 {
            return Ok(ChangeOutcome::OrderNotActive);
        }
    }
    Ok(ChangeOutcome::Changed)
}

pub(crate) async fn evict_completed<C>(
    conn: &mut C,
    address: &KeyAddress,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    completed_record: QueryFragment<C::Backend> + QueryId,
{
    completed_record(
        to_i64(address.tenant.get())?,
        to_i64(address.actor.get())?,
        address.operation.as_str().as_bytes().to_vec(),
        address.key.as_str().as_bytes().to_vec(),
        COMPLETED,
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

pub(crate) type InsertAudit<'a> =
    dsl::Values<dsl::insert_into<audit_events::table>, NewAuditRow<'a>>;

pub(crate) async fn insert_audit<'a, C>(
    conn: &mut C,
    entry: &'a AuditEntry,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    InsertAudit<'a>: QueryFragment<C::Backend> + QueryId,
{
    diesel::insert_into(audit_events::table)
        .values(NewAuditRow::of(entry)?)
        .execute(conn)
        .await
        .map(drop)
        .map_err(C::Backend::store_error)
}
