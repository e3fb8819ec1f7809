//! The capture's acceptance: the tenant's active order takes it (its revision goes up, a
//! write a cancel of the order would conflict with), then the pending `operations` row is
//! inserted. A missing, foreign or cancelled order inserts nothing.

use application::StepError;
use application::payments::CaptureRefusal;
use application::ports::{NewCapture, OperationWriter, StoreError};
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use domain::{OperationState, OrderStatus};

use crate::orders::push_tenants_active_order;
use crate::sql::bad_value::OutOfRange;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::{Classify, Unique, refused_on};
use crate::sql::connection::SqlConnection;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operation_traces, operations, orders};
use crate::telemetry::current_traceparent;

/// One pending or succeeded capture per order (a partial index on SQLite, a generated
/// column on MySQL): its violation is the acceptance's refusal.
pub(crate) const ACTIVE_CAPTURE: Unique = Unique {
    index: "uq_operations_active_order",
    sqlite_message: "UNIQUE constraint failed: operations.tenant_id, operations.order_id",
};

const ACTIVE: &str = OrderStatus::Active.as_stored();

/// `UPDATE orders SET revision = revision + 1 WHERE id = ? AND tenant_id = ? AND status =
/// 'ACTIVE'`: row-locks the tenant's active order, and on Galera makes a concurrent
/// cancel's write set conflict with this one. Hand-written, like the record's completion
/// (`sql/complete_record.rs`): diesel prepares a DSL `UPDATE` anew on every call.
pub(crate) struct TakeActiveOrder {
    tenant: i64,
    order: i64,
}

pub(crate) struct TakeActiveOrderQuery;

impl QueryId for TakeActiveOrder {
    type QueryId = TakeActiveOrderQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for TakeActiveOrder
where
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET revision = revision + 1");
        push_tenants_active_order(&mut out, &self.order, &self.tenant)
    }
}

/// Why the order did not take the capture.
#[dsl::auto_type]
fn order_status(tenant: i64, order: i64) -> _ {
    orders::table
        .filter(orders::id.eq(order))
        .filter(orders::tenant_id.eq(tenant))
        .select(orders::status)
}

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
    amount: i32,
    currency: &'a [u8],
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

/// Written only while tracing is on: every attempt continues the accepting request's trace.
#[derive(Insertable)]
#[diesel(table_name = operation_traces)]
pub(crate) struct NewTraceRow<'a> {
    operation_id: &'a [u8],
    trace_context: String,
}

pub(crate) type InsertTrace<'a> =
    Values<dsl::insert_into<operation_traces::table>, NewTraceRow<'a>>;

/// No active order of the tenant, or a second active capture of it, is the refusal.
pub(crate) async fn accept<'a, C>(
    conn: &mut C,
    capture: &'a NewCapture,
) -> Result<(), StepError<CaptureRefusal>>
where
    C: SqlConnection,
    TakeActiveOrder: QueryFragment<C::Backend>,
    Limit<order_status>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<Text>,
    String: FromSqlRow<Text, C::Backend>,
    InsertOperation<'a>: QueryFragment<C::Backend>,
    InsertTrace<'a>: QueryFragment<C::Backend>,
{
    let input = &capture.input;
    let amount =
        i32::try_from(input.amount.get()).map_err(|_| StoreError::from(OutOfRange("amount")))?;
    let (tenant, order) = (to_i64(capture.tenant.get())?, to_i64(input.order.get())?);
    let taken = TakeActiveOrder { tenant, order }
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    if taken == 0 {
        let status: Option<String> = order_status(tenant, order)
            .first(conn)
            .await
            .optional()
            .map_err(C::Backend::store_error)?;
        return Err(StepError::Rejected(match status {
            Some(status) if status != ACTIVE => CaptureRefusal::OrderCancelled,
            _ => CaptureRefusal::OrderNotFound,
        }));
    }
    let at = capture.accepted_at.naive_utc();
    let row = NewOperationRow {
        id: capture.id.as_bytes(),
        operation_type: capture.operation_type.as_bytes(),
        tenant_id: tenant,
        order_id: order,
        amount,
        currency: input.currency.as_str().as_bytes(),
        downstream_key: capture.downstream_key.as_bytes(),
        state: OperationState::Pending.as_stored(),
        generation: 0,
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
    };
    match diesel::insert_into(operations::table)
        .values(row)
        .execute(conn)
        .await
    {
        Ok(_) => {}
        Err(error) => {
            return Err(refused_on::<C::Backend, _>(
                error,
                ACTIVE_CAPTURE,
                CaptureRefusal::PaymentExists,
            ));
        }
    }
    if let Some(trace_context) = current_traceparent() {
        let row = NewTraceRow {
            operation_id: capture.id.as_bytes(),
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

for_both_transactions! {
    impl OperationWriter {
        async fn accept_capture(
            &mut self,
            capture: &NewCapture,
        ) -> Result<(), StepError<CaptureRefusal>> {
            self.run("operation insert", async |conn, _| accept(conn, capture).await)
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn both_backends_take_only_the_tenants_active_order() {
        let take = TakeActiveOrder {
            tenant: 1,
            order: 9,
        };
        for text in [
            debug_query::<Mysql, _>(&take).to_string(),
            debug_query::<Sqlite, _>(&take).to_string(),
        ] {
            assert!(
                text.starts_with(
                    "UPDATE orders SET revision = revision + 1 WHERE id = ? AND tenant_id = ? \
                     AND status = 'ACTIVE' -- binds: [9, 1]"
                ),
                "{text}"
            );
        }
    }
}
