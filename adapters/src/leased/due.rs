//! The operations a worker may claim now, of the kinds it serves, checked into the port's
//! view.

use application::ports::{DueOperation, StoreError};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use domain::{Generation, LeaseView, OwnerId};
use uuid::Uuid;

use super::fenced::PENDING;
use crate::sql::bad_value::bad_row;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::rows::{stored_order, stored_tenant};
use crate::sql::schema::{operation_traces, operations};

#[derive(Queryable)]
pub(crate) struct DueRow {
    id: Vec<u8>,
    operation_type: Vec<u8>,
    tenant_id: i64,
    order_id: i64,
    input: Vec<u8>,
    downstream_key: Vec<u8>,
    attempts: i32,
    generation: i64,
    lease_owner: Option<Vec<u8>>,
    lease_expires_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    trace_context: Option<String>,
}

impl DueRow {
    /// The job stays as stored: the kind reads it, and one that no longer reads ends the
    /// operation for review rather than failing the whole poll.
    pub(crate) fn into_due(self) -> Result<DueOperation, StoreError> {
        let corrupt = |column| bad_row("operations", column);
        let holder = match (self.lease_owner, self.lease_expires_at) {
            (Some(owner), Some(expires)) => Some((
                String::from_utf8(owner)
                    .ok()
                    .and_then(|o| OwnerId::parse(&o).ok())
                    .ok_or_else(|| corrupt("lease owner"))?,
                expires.and_utc(),
            )),
            _ => None,
        };
        Ok(DueOperation {
            id: Uuid::from_slice(&self.id).map_err(|_| corrupt("id"))?,
            kind: String::from_utf8(self.operation_type).map_err(|_| corrupt("type"))?,
            tenant: stored_tenant(self.tenant_id)?,
            order: stored_order(self.order_id)?,
            input: self.input,
            downstream_key: String::from_utf8(self.downstream_key)
                .map_err(|_| corrupt("downstream key"))?,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            accepted_at: self.created_at.and_utc(),
            lease: LeaseView {
                generation: Generation::new(u64::try_from(self.generation).unwrap_or(0)),
                holder,
            },
            trace_context: self.trace_context,
        })
    }
}

/// The columns of [`DueRow`], in its field order.
#[dsl::auto_type]
pub(crate) fn due_columns() -> _ {
    (
        operations::id,
        operations::operation_type,
        operations::tenant_id,
        operations::order_id,
        operations::input,
        operations::downstream_key,
        operations::attempts,
        operations::generation,
        operations::lease_owner,
        operations::lease_expires_at,
        operations::created_at,
        operation_traces::trace_context.nullable(),
    )
}

#[dsl::auto_type]
pub(crate) fn due_query(
    state: &'static str,
    kinds: Vec<Vec<u8>>,
    now: NaiveDateTime,
    limit: i64,
) -> _ {
    operations::table
        .left_join(operation_traces::table)
        .filter(operations::state.eq(state))
        .filter(operations::operation_type.eq_any(kinds))
        .filter(operations::next_attempt_at.le(now))
        .filter(
            operations::lease_expires_at
                .is_null()
                .or(operations::lease_expires_at.le(now)),
        )
        .order(operations::next_attempt_at.asc())
        .limit(limit)
        .select(due_columns())
}

pub(crate) async fn due<C>(
    conn: &mut C,
    kinds: &[&'static str],
    limit: usize,
    now: NaiveDateTime,
) -> Result<Vec<DueOperation>, StoreError>
where
    C: SqlConnection,
    due_query: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<due_columns>>,
    DueRow: FromSqlRow<SqlTypeOf<due_columns>, C::Backend>,
{
    let kinds = kinds.iter().map(|kind| kind.as_bytes().to_vec()).collect();
    let rows: Vec<DueRow> = due_query(
        PENDING,
        kinds,
        now,
        i64::try_from(limit).unwrap_or(i64::MAX),
    )
    .load(conn)
    .await
    .map_err(C::Backend::store_error)?;
    rows.into_iter().map(DueRow::into_due).collect()
}
