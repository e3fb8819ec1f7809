//! The row every leased operation's acceptance writes, whatever its kind; the kind's own SQL
//! decides first and calls this (`payments/capture/sql.rs`).

use application::leased::NewOperation;
use application::{Refusal, StepError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Values};
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel_async::RunQueryDsl;
use domain::OperationState;

use application::ports::StoreError;

use crate::sql::bad_value::bad_row;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::multi_row::MultiValues;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operation_traces, operations};
use crate::telemetry::current_traceparent;

/// Written `PENDING`, generation 0, no owner, due at once.
#[derive(Insertable)]
#[diesel(table_name = operations)]
// Plain values only, so MySQL caches the statement (see `records::NewRecordRow`).
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewOperationRow<'a> {
    id: &'a [u8],
    operation_type: &'a [u8],
    tenant_id: i64,
    order_id: i64,
    input: &'a [u8],
    result: &'a [u8],
    downstream_key: &'a [u8],
    state: &'static str,
    generation: i64,
    attempts: i32,
    next_attempt_at: NaiveDateTime,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

pub(crate) type InsertOperation<'a> =
    Values<dsl::insert_into<operations::table>, NewOperationRow<'a>>;

pub(crate) type InsertOperations<'a> =
    MultiValues<<NewOperationRow<'a> as Insertable<operations::table>>::Values>;

impl<'a> NewOperationRow<'a> {
    fn of(operation: &'a NewOperation) -> Result<Self, StoreError> {
        let at = operation.accepted_at.naive_utc();
        Ok(Self {
            id: operation.id.as_bytes(),
            operation_type: operation.kind.as_bytes(),
            tenant_id: to_i64(operation.tenant.get())?,
            order_id: to_i64(operation.order.get())?,
            input: &operation.input,
            result: &operation.result,
            downstream_key: operation.downstream_key.as_bytes(),
            state: OperationState::Pending.as_stored(),
            generation: 0,
            attempts: 0,
            next_attempt_at: at,
            created_at: at,
            updated_at: at,
        })
    }
}

/// Written only while tracing is on: every attempt continues the accepting request's trace.
#[derive(Insertable)]
#[diesel(table_name = operation_traces)]
pub(crate) struct NewTraceRow<'a> {
    operation_id: &'a [u8],
    trace_context: String,
}

pub(crate) type InsertTrace<'a> =
    Values<dsl::insert_into<operation_traces::table>, NewTraceRow<'a>>;

pub(crate) type InsertTraces<'a> =
    MultiValues<<NewTraceRow<'a> as Insertable<operation_traces::table>>::Values>;

/// The operation's row, and its trace while tracing is on. `refused` reads the row
/// insert's failure, where a kind finds a constraint of its own (an active capture's).
pub(crate) async fn insert_operation<'a, C, R: Refusal>(
    conn: &mut C,
    operation: &'a NewOperation,
    refused: impl FnOnce(diesel::result::Error) -> StepError<R>,
) -> Result<(), StepError<R>>
where
    C: SqlConnection,
    InsertOperation<'a>: QueryFragment<C::Backend>,
    InsertTrace<'a>: QueryFragment<C::Backend>,
{
    diesel::insert_into(operations::table)
        .values(NewOperationRow::of(operation)?)
        .execute(conn)
        .await
        .map_err(refused)?;
    if let Some(trace_context) = current_traceparent() {
        let row = NewTraceRow {
            operation_id: operation.id.as_bytes(),
            trace_context,
        };
        diesel::insert_into(operation_traces::table)
            .values(row)
            .execute(conn)
            .await
            .map_err(C::Backend::store_error)?;
    }
    Ok(())
}

/// Operations accepted together by a batch, in one insert, and the traces of those that
/// came in a traced request's span in another: each keeps its own request's trace.
pub(crate) async fn insert_operations<'a, C, R: Refusal>(
    conn: &mut C,
    accepted: &'a [(&'a NewOperation, &'a tracing::Span)],
    refused: impl FnOnce(diesel::result::Error) -> StepError<R>,
) -> Result<(), StepError<R>>
where
    C: SqlConnection,
    InsertOperations<'a>: QueryFragment<C::Backend> + QueryId + Send,
    InsertTraces<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let rows = accepted
        .iter()
        .map(|(operation, _)| NewOperationRow::of(operation))
        .collect::<Result<Vec<_>, _>>()?;
    let inserted = MultiValues::new("operations", rows)
        .execute(conn)
        .await
        .map_err(refused)?;
    if inserted != accepted.len() {
        return Err(bad_row("operations", "id").into());
    }
    let traces: Vec<NewTraceRow<'a>> = accepted
        .iter()
        .filter_map(|(operation, span)| {
            span.in_scope(current_traceparent)
                .map(|trace_context| NewTraceRow {
                    operation_id: operation.id.as_bytes(),
                    trace_context,
                })
        })
        .collect();
    if !traces.is_empty() {
        MultiValues::new("operation_traces", traces)
            .execute(conn)
            .await
            .map_err(C::Backend::store_error)?;
    }
    Ok(())
}
