//! The worker's conditional writes (`docs/long-running-operations.md#leases-and-fencing`):
//! each answers by its row count whether the fence let it through.

use application::ports::{Ending, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, QueryFragment, QueryId, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::sql_types::{Binary, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{AttemptError, Generation, Lease, OperationState};
use uuid::Uuid;

use super::bad_value::OutOfRange;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::schema::operations;

pub(crate) const PENDING: &str = OperationState::Pending.as_stored();

/// Still in `state` at `generation`, with no lease live at `now`: what a claim and an
/// operator's change both require.
#[dsl::auto_type]
pub(crate) fn unleased(id: Vec<u8>, state: &'static str, generation: i64, now: NaiveDateTime) -> _ {
    operations::table.filter(
        operations::id
            .eq(id)
            .and(operations::state.eq(state))
            .and(operations::generation.eq(generation))
            .and(
                operations::lease_expires_at
                    .is_null()
                    .or(operations::lease_expires_at.le(now)),
            ),
    )
}

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
    dsl::update({
        let target: unleased = unleased(id, state, seen, now);
        target
    })
    .set((
        operations::generation.eq(next),
        operations::lease_owner.eq(owner),
        operations::lease_expires_at.eq(expires),
        operations::updated_at.eq(now),
    ))
}

/// What a holder of `generation` may write: this operation, still pending at it.
#[dsl::auto_type]
fn fenced(id: Vec<u8>, state: &'static str, generation: i64) -> _ {
    operations::table.filter(
        operations::id
            .eq(id)
            .and(operations::state.eq(state))
            .and(operations::generation.eq(generation)),
    )
}

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

/// Gives the lease back by running it out at `now`; its last owner stays for the record.
#[dsl::auto_type]
fn retry_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    attempts: i32,
    error: &'static str,
    next_at: NaiveDateTime,
    now: NaiveDateTime,
) -> _ {
    dsl::update({
        let target: fenced = fenced(id, state, generation);
        target
    })
    .set((
        operations::attempts.eq(attempts),
        operations::last_error.eq(error),
        operations::next_attempt_at.eq(next_at),
        operations::lease_expires_at.eq(now),
        operations::updated_at.eq(now),
    ))
}

#[dsl::auto_type]
fn end_statement(
    id: Vec<u8>,
    state: &'static str,
    generation: i64,
    end_state: &'static str,
    attempts: i32,
    error: Option<&'static str>,
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
        operations::last_error.eq(error),
        operations::lease_owner.eq(no_owner),
        operations::lease_expires_at.eq(no_expiry),
        operations::updated_at.eq(now),
    ))
}

/// A succeeded operation's payment, copied from the operation's own row.
const INSERT_PAYMENT: &str = "INSERT INTO payments \
     (operation_id, tenant_id, order_id, provider_charge_id, amount, currency, created_at) \
     SELECT id, tenant_id, order_id, ?, amount, currency, ? FROM operations WHERE id = ?";

fn stored(generation: Generation) -> Result<i64, StoreError> {
    i64::try_from(generation.get()).map_err(|_| OutOfRange("generation").into())
}

fn changed_one(rows: usize) -> bool {
    rows == 1
}

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

pub(crate) async fn retry_later<C>(
    conn: &mut C,
    id: Uuid,
    lease: &Lease,
    attempts: u32,
    error: AttemptError,
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
        error.as_str(),
        next_at,
        now,
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// Ends the operation and, for a success, inserts its payment: run it inside a
/// transaction, and commit only when it answers `true`.
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
        match ending {
            Ending::NeedsReview(error) => Some(error.as_str()),
            Ending::Succeeded { .. } | Ending::Declined => None,
        },
        now,
    )
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    if !changed_one(ended) {
        return Ok(false);
    }
    if let Ending::Succeeded { charge_id } = ending {
        insert_payment(conn, id, charge_id, now).await?;
    }
    Ok(true)
}

/// The payment of operation `id`, charged as `charge_id`: inside the transaction that
/// ended it.
pub(crate) async fn insert_payment<C>(
    conn: &mut C,
    id: Uuid,
    charge_id: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    C::Backend: HasSqlType<Binary> + HasSqlType<Timestamp>,
    Vec<u8>: ToSql<Binary, C::Backend>,
    NaiveDateTime: ToSql<Timestamp, C::Backend>,
    for<'f> BoxedSqlQuery<'f, C::Backend, SqlQuery>: QueryFragment<C::Backend> + QueryId,
{
    diesel::sql_query(INSERT_PAYMENT)
        .into_boxed::<C::Backend>()
        .bind::<Binary, _>(charge_id.as_bytes().to_vec())
        .bind::<Timestamp, _>(now)
        .bind::<Binary, _>(id.as_bytes().to_vec())
        .execute(conn)
        .await
        .map(drop)
        .map_err(C::Backend::store_error)
}
