//! The worker's conditional writes (`docs/long-running-operations.md#leases-and-fencing`):
//! each answers by its row count whether the fence let it through.

use application::ports::{Ending, OperationEnd, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel_async::RunQueryDsl;
use domain::{AttemptError, Generation, Lease, OperationState};
use uuid::Uuid;

use crate::sql::bad_value::OutOfRange;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::schema::operations;

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

#[dsl::auto_type]
fn result_statement(id: Vec<u8>, result: Vec<u8>) -> _ {
    dsl::update(operations::table.filter(operations::id.eq(id))).set(operations::result.eq(result))
}

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

/// Ends the operation under its fence; run it inside a transaction, and go on only when it
/// answers `true`.
pub(crate) async fn end<C>(conn: &mut C, end: &OperationEnd<'_>) -> Result<bool, StoreError>
where
    C: SqlConnection,
    end_statement: QueryFragment<C::Backend> + QueryId,
{
    end_statement(
        end.operation.id.as_bytes().to_vec(),
        PENDING,
        stored(end.lease.generation)?,
        end.ending.state().as_stored(),
        i32::try_from(end.attempts).unwrap_or(i32::MAX),
        match end.ending {
            Ending::NeedsReview(error) => Some(error.as_str()),
            Ending::Succeeded { .. } | Ending::Declined => None,
        },
        end.now.naive_utc(),
    )
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// The result member the status read shows, as the kind recorded it.
pub(crate) async fn set_result<C>(conn: &mut C, id: Uuid, result: Vec<u8>) -> Result<(), StoreError>
where
    C: SqlConnection,
    result_statement: QueryFragment<C::Backend> + QueryId,
{
    result_statement(id.as_bytes().to_vec(), result)
        .execute(conn)
        .await
        .map(drop)
        .map_err(C::Backend::store_error)
}
