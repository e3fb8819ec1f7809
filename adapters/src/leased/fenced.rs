//! The worker's conditional writes (`docs/long-running-operations.md#leases-and-fencing`):
//! each answers by its row count whether the fence let it through. Hand-written, like the
//! record's completion (`sql/complete_record.rs`): diesel prepares a DSL `UPDATE` anew on
//! every call, and these run for every operation.

use application::ports::{Ending, OperationEnd, StoreError};
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Integer, Nullable, Text, Timestamp};
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

/// ` WHERE id = ? AND state = 'PENDING' AND generation = ?`: what a holder of
/// `generation` may write, this operation still pending at it.
fn push_fence<'b, DB>(
    out: &mut AstPass<'_, 'b, DB>,
    id: &'b [u8],
    generation: &'b i64,
) -> QueryResult<()>
where
    DB: Backend,
    [u8]: ToSql<Binary, DB>,
    i64: ToSql<BigInt, DB>,
{
    out.push_sql(" WHERE id = ");
    out.push_bind_param::<Binary, _>(id)?;
    out.push_sql(" AND state = '");
    out.push_sql(PENDING);
    out.push_sql("' AND generation = ");
    out.push_bind_param::<BigInt, _>(generation)
}

/// `UPDATE operations SET state = ?, attempts = ?, last_error = ?, lease_owner = NULL,
/// lease_expires_at = NULL, updated_at = ?` under the fence.
pub(crate) struct EndOperation {
    id: [u8; 16],
    generation: i64,
    state: &'static str,
    attempts: i32,
    error: Option<&'static str>,
    now: NaiveDateTime,
}

pub(crate) struct EndOperationQuery;

impl QueryId for EndOperation {
    type QueryId = EndOperationQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for EndOperation
where
    [u8]: ToSql<Binary, DB>,
    i64: ToSql<BigInt, DB>,
    i32: ToSql<Integer, DB>,
    str: ToSql<Text, DB>,
    Option<&'static str>: ToSql<Nullable<Text>, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE operations SET state = ");
        out.push_bind_param::<Text, _>(self.state)?;
        out.push_sql(", attempts = ");
        out.push_bind_param::<Integer, _>(&self.attempts)?;
        out.push_sql(", last_error = ");
        out.push_bind_param::<Nullable<Text>, _>(&self.error)?;
        out.push_sql(", lease_owner = NULL, lease_expires_at = NULL, updated_at = ");
        out.push_bind_param::<Timestamp, _>(&self.now)?;
        push_fence(&mut out, &self.id, &self.generation)
    }
}

/// `UPDATE operations SET attempts = ?, last_error = ?, next_attempt_at = ?,
/// lease_expires_at = ?, updated_at = ?` under the fence: gives the lease back by running
/// it out at `now`; its last owner stays for the record.
pub(crate) struct RetryOperation {
    id: [u8; 16],
    generation: i64,
    attempts: i32,
    error: &'static str,
    next_at: NaiveDateTime,
    now: NaiveDateTime,
}

pub(crate) struct RetryOperationQuery;

impl QueryId for RetryOperation {
    type QueryId = RetryOperationQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for RetryOperation
where
    [u8]: ToSql<Binary, DB>,
    i64: ToSql<BigInt, DB>,
    i32: ToSql<Integer, DB>,
    str: ToSql<Text, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE operations SET attempts = ");
        out.push_bind_param::<Integer, _>(&self.attempts)?;
        out.push_sql(", last_error = ");
        out.push_bind_param::<Text, _>(self.error)?;
        out.push_sql(", next_attempt_at = ");
        out.push_bind_param::<Timestamp, _>(&self.next_at)?;
        out.push_sql(", lease_expires_at = ");
        out.push_bind_param::<Timestamp, _>(&self.now)?;
        out.push_sql(", updated_at = ");
        out.push_bind_param::<Timestamp, _>(&self.now)?;
        push_fence(&mut out, &self.id, &self.generation)
    }
}

/// `UPDATE operations SET result = ? WHERE id = ?`, in the transaction whose end went
/// through its fence.
pub(crate) struct SetResult {
    id: [u8; 16],
    result: Vec<u8>,
}

pub(crate) struct SetResultQuery;

impl QueryId for SetResult {
    type QueryId = SetResultQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for SetResult
where
    [u8]: ToSql<Binary, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE operations SET result = ");
        out.push_bind_param::<Binary, _>(self.result.as_slice())?;
        out.push_sql(" WHERE id = ");
        out.push_bind_param::<Binary, _>(&self.id[..])
    }
}

pub(crate) fn stored(generation: Generation) -> Result<i64, StoreError> {
    i64::try_from(generation.get()).map_err(|_| OutOfRange("generation").into())
}

fn changed_one(rows: usize) -> bool {
    rows == 1
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
    RetryOperation: QueryFragment<C::Backend>,
{
    RetryOperation {
        id: id.into_bytes(),
        generation: stored(lease.generation)?,
        attempts: i32::try_from(attempts).unwrap_or(i32::MAX),
        error: error.as_str(),
        next_at,
        now,
    }
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
    EndOperation: QueryFragment<C::Backend>,
{
    EndOperation {
        id: end.operation.id.into_bytes(),
        generation: stored(end.lease.generation)?,
        state: end.ending.state().as_stored(),
        attempts: i32::try_from(end.attempts).unwrap_or(i32::MAX),
        error: match end.ending {
            Ending::NeedsReview(error) => Some(error.as_str()),
            Ending::Succeeded { .. } | Ending::Declined => None,
        },
        now: end.now.naive_utc(),
    }
    .execute(conn)
    .await
    .map(changed_one)
    .map_err(C::Backend::store_error)
}

/// The result member the status read shows, as the kind recorded it.
pub(crate) async fn set_result<C>(conn: &mut C, id: Uuid, result: Vec<u8>) -> Result<(), StoreError>
where
    C: SqlConnection,
    SetResult: QueryFragment<C::Backend>,
{
    SetResult {
        id: id.into_bytes(),
        result,
    }
    .execute(conn)
    .await
    .map(drop)
    .map_err(C::Backend::store_error)
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use diesel::debug_query;
    use diesel::mysql::Mysql;

    use super::*;

    /// Every operation's end runs it: prepared once per connection, whatever its values.
    #[test]
    fn an_end_is_one_cached_statement_under_the_fence() {
        let now = DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        let end = |error| EndOperation {
            id: [7; 16],
            generation: 3,
            state: OperationState::NeedsReview.as_stored(),
            attempts: 2,
            error,
            now,
        };
        for error in [None, Some(AttemptError::Timeout.as_str())] {
            let text = debug_query::<Mysql, _>(&end(error)).to_string();
            assert!(
                text.starts_with(
                    "UPDATE operations SET state = ?, attempts = ?, last_error = ?, \
                     lease_owner = NULL, lease_expires_at = NULL, updated_at = ? \
                     WHERE id = ? AND state = 'PENDING' AND generation = ?"
                ),
                "{text}"
            );
            assert!(
                QueryFragment::<Mysql>::is_safe_to_cache_prepared(&end(error), &Mysql).unwrap()
            );
        }
    }
}
