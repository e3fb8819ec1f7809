//! SQL of long-running operations (contract §7): the worker's conditional writes, each
//! answering with its row count whether the fence let it through (the due read is in
//! `due_operations`).

use application::ports::{Ending, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, QueryFragment, QueryId, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::sql_types::{Binary, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{Generation, Lease, OperationState};
use uuid::Uuid;

use super::bad_value::OutOfRange;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::schema::operations;

/// The state of an operation a worker may still work, as stored.
pub(crate) const PENDING: &str = OperationState::Pending.as_stored();

/// The claim: generation `seen` + 1 to `owner` until `expires`, if still pending at
/// generation `seen` with the lease free or run out at `now`.
#[dsl::auto_type]
fn claim_statement(
    id: Vec<u8>,
    state: &'static str,
    seen: i64,
    now: NaiveDateTime,
    next: i64,
    owner: Option<Vec<u8>>,
    expires: Option<NaiveDateTime>,
) -> _ {
    dsl::update(
        operations::table.filter(
            operations::id
                .eq(id)
                .and(operations::state.eq(state))
                .and(operations::generation.eq(seen))
                .and(
                    operations::lease_expires_at
                        .is_null()
                        .or(operations::lease_expires_at.le(now)),
                ),
        ),
    )
    .set((
        operations::generation.eq(next),
        operations::lease_owner.eq(owner),
        operations::lease_expires_at.eq(expires),
        operations::updated_at.eq(now),
    ))
}

/// The rows a holder of generation `generation` may write: this pending operation at
/// that generation, and only then.
#[dsl::auto_type]
fn fenced(id: Vec<u8>, state: &'static str, generation: i64) -> _ {
    operations::table.filter(
        operations::id
            .eq(id)
            .and(operations::state.eq(state))
            .and(operations::generation.eq(generation)),
    )
}

/// The extension: a new expiry, under the fence.
#[dsl::auto_type]
fn extend_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    expires: Option<NaiveDateTime>,
) -> _ {
    dsl::update({
        let target: fenced = fenced(id, state, generation);
        target
    })
    .set(operations::lease_expires_at.eq(expires))
}

/// The retry: the attempt counted, the next one due, the lease given back (run out as of
/// `now`, its last owner kept for the record), under the fence.
#[dsl::auto_type]
fn retry_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    attempts: i32,
    next_at: NaiveDateTime,
    now: NaiveDateTime,
) -> _ {
    dsl::update({
        let target: fenced = fenced(id, state, generation);
        target
    })
    .set((
        operations::attempts.eq(attempts),
        operations::next_attempt_at.eq(next_at),
        operations::lease_expires_at.eq(now),
        operations::updated_at.eq(now),
    ))
}

/// The end: the final state and the attempts it ends with, the lease given back, under
/// the fence.
#[dsl::auto_type]
fn end_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    end_state: &'static str,
    attempts: i32,
    now: NaiveDateTime,
) -> _ {
    let no_owner: Option<Vec<u8>> = None;
    let no_expiry: Option<NaiveDateTime> = None;
    dsl::update({
        let target: fenced = fenced(id, state, generation);
        target
    })
    .set((
        operations::state.eq(end_state),
        operations::attempts.eq(attempts),
        operations::lease_owner.eq(no_owner),
        operations::lease_expires_at.eq(no_expiry),
        operations::updated_at.eq(now),
    ))
}

/// The payment row of a succeeded operation, copied from the operation's own row.
const INSERT_PAYMENT: &str = "INSERT INTO payments \
     (operation_id, tenant_id, order_id, provider_charge_id, amount, currency, created_at) \
     SELECT id, tenant_id, order_id, ?, amount, currency, ? FROM operations WHERE id = ?";

/// A generation as stored (`BIGINT`).
fn stored(generation: Generation) -> Result<i64, StoreError> {
    i64::try_from(generation.get()).map_err(|_| OutOfRange("generation").into())
}

fn changed_one(rows: usize) -> bool {
    rows == 1
}

/// Claims `id` for `lease` if still at generation `seen` and free at `now`.
pub(crate) async fn claim<C>(
    conn: &mut C,
    id: Uuid,
    seen: Generation,
    lease: &Lease,
    now: NaiveDateTime,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    claim_statement: QueryFragment<C::Backend> + QueryId,
{
    claim_statement(
        id.as_bytes().to_vec(),
        PENDING,
        stored(seen)?,
        now,
        stored(lease.generation)?,
        Some(lease.owner.as_str().as_bytes().to_vec()),
        Some(lease.expires_at.naive_utc()),
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// Moves the lease's expiry on, under the fence.
pub(crate) async fn extend<C>(conn: &mut C, id: Uuid, lease: &Lease) -> Result<bool, StoreError>
where
    C: SqlConnection,
    extend_statement: QueryFragment<C::Backend> + QueryId,
{
    extend_statement(
        id.as_bytes().to_vec(),
        PENDING,
        stored(lease.generation)?,
        Some(lease.expires_at.naive_utc()),
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// Counts the attempt and schedules the next, under the fence.
pub(crate) async fn retry_later<C>(
    conn: &mut C,
    id: Uuid,
    lease: &Lease,
    attempts: u32,
    next_at: NaiveDateTime,
    now: NaiveDateTime,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    retry_statement: QueryFragment<C::Backend> + QueryId,
{
    retry_statement(
        id.as_bytes().to_vec(),
        PENDING,
        stored(lease.generation)?,
        i32::try_from(attempts).unwrap_or(i32::MAX),
        next_at,
        now,
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// Ends the operation under the fence and, for a success, inserts its payment: run it
/// inside a transaction, and commit only when it answers `true`.
pub(crate) async fn complete<C>(
    conn: &mut C,
    id: Uuid,
    lease: &Lease,
    ending: &Ending,
    attempts: u32,
    now: NaiveDateTime,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    end_statement: QueryFragment<C::Backend> + QueryId,
    C::Backend: HasSqlType<Binary> + HasSqlType<Timestamp>,
    Vec<u8>: ToSql<Binary, C::Backend>,
    NaiveDateTime: ToSql<Timestamp, C::Backend>,
    for<'f> BoxedSqlQuery<'f, C::Backend, SqlQuery>: QueryFragment<C::Backend> + QueryId,
{
    let ended = end_statement(
        id.as_bytes().to_vec(),
        PENDING,
        stored(lease.generation)?,
        ending.state().as_stored(),
        i32::try_from(attempts).unwrap_or(i32::MAX),
        now,
    )
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    if !changed_one(ended) {
        return Ok(false);
    }
    if let Ending::Succeeded { charge_id } = ending {
        let insert = diesel::sql_query(INSERT_PAYMENT)
            .into_boxed::<C::Backend>()
            .bind::<Binary, _>(charge_id.as_bytes().to_vec())
            .bind::<Timestamp, _>(now)
            .bind::<Binary, _>(id.as_bytes().to_vec());
        insert
            .execute(conn)
            .await
            .map_err(C::Backend::store_error)?;
    }
    Ok(true)
}
