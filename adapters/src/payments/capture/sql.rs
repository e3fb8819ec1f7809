//! The capture's acceptance: one statement inserts the pending `operations` row from the
//! tenant's own order, so a missing or foreign order inserts nothing.

use application::StepError;
use application::payments::CaptureRefusal;
use application::ports::{NewCapture, OperationWriter, StoreError};
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Integer, Text, Timestamp};
use diesel_async::RunQueryDsl;
use domain::OperationState;

use crate::sql::bad_value::OutOfRange;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::{Unique, refused_on};
use crate::sql::connection::SqlConnection;
use crate::sql::rows::to_i64;

/// One pending or succeeded capture per order (a partial index on SQLite, a generated
/// column on MySQL): its violation is the acceptance's refusal.
pub(crate) const ACTIVE_CAPTURE: Unique = Unique {
    index: "uq_operations_active_order",
    sqlite_message: "UNIQUE constraint failed: operations.tenant_id, operations.order_id",
};

/// `INSERT ... SELECT ... FROM orders`: tenant and order come from `orders`, so no row of
/// another tenant can be named. A static query id, because a raw `sql_query` is prepared
/// and closed on every call on MySQL.
pub(crate) struct InsertOperation<'a> {
    id: &'a [u8],
    operation_type: &'a str,
    amount: i32,
    currency: &'a str,
    downstream_key: &'a str,
    state: &'static str,
    at: NaiveDateTime,
    tenant: i64,
    order: i64,
}

pub(crate) struct InsertOperationQuery;

impl QueryId for InsertOperation<'_> {
    type QueryId = InsertOperationQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB> QueryFragment<DB> for InsertOperation<'_>
where
    DB: Backend,
    i32: ToSql<Integer, DB>,
    i64: ToSql<BigInt, DB>,
    str: ToSql<Text, DB>,
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO operations (id, operation_type, tenant_id, order_id, amount, \
             currency, downstream_key, state, generation, attempts, next_attempt_at, \
             created_at, updated_at) SELECT ",
        );
        out.push_bind_param::<Binary, _>(self.id)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(self.operation_type.as_bytes())?;
        out.push_sql(", tenant_id, id, ");
        out.push_bind_param::<Integer, _>(&self.amount)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(self.currency.as_bytes())?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(self.downstream_key.as_bytes())?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(self.state)?;
        out.push_sql(", 0, 0, ");
        for _ in 0..2 {
            out.push_bind_param::<Timestamp, _>(&self.at)?;
            out.push_sql(", ");
        }
        out.push_bind_param::<Timestamp, _>(&self.at)?;
        out.push_sql(" FROM orders WHERE tenant_id = ");
        out.push_bind_param::<BigInt, _>(&self.tenant)?;
        out.push_sql(" AND id = ");
        out.push_bind_param::<BigInt, _>(&self.order)?;
        Ok(())
    }
}

/// No such order in the tenant, or a second active capture of it, is the refusal.
pub(crate) async fn accept<C>(
    conn: &mut C,
    capture: &NewCapture,
) -> Result<(), StepError<CaptureRefusal>>
where
    C: SqlConnection,
    for<'a> InsertOperation<'a>: QueryFragment<C::Backend>,
{
    let input = &capture.input;
    let amount =
        i32::try_from(input.amount.get()).map_err(|_| StoreError::from(OutOfRange("amount")))?;
    let insert = InsertOperation {
        id: capture.id.as_bytes(),
        operation_type: capture.operation_type,
        amount,
        currency: input.currency.as_str(),
        downstream_key: &capture.downstream_key,
        state: OperationState::Pending.as_stored(),
        at: capture.accepted_at.naive_utc(),
        tenant: to_i64(capture.tenant.get())?,
        order: to_i64(input.order.get())?,
    };
    match insert.execute(conn).await {
        Ok(0) => Err(StepError::Rejected(CaptureRefusal::OrderNotFound)),
        Ok(_) => Ok(()),
        Err(error) => Err(refused_on::<C::Backend, _>(
            error,
            ACTIVE_CAPTURE,
            CaptureRefusal::PaymentExists,
        )),
    }
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
    fn both_backends_get_one_insert_select_from_the_tenants_order() {
        let insert = InsertOperation {
            id: &[0; 16],
            operation_type: "payments.capture.v1",
            amount: 1500,
            currency: "JPY",
            downstream_key: "k",
            state: "PENDING",
            at: chrono::DateTime::UNIX_EPOCH.naive_utc(),
            tenant: 1,
            order: 9,
        };
        const STATEMENT: &str = "INSERT INTO operations (id, operation_type, tenant_id, \
            order_id, amount, currency, downstream_key, state, generation, attempts, \
            next_attempt_at, created_at, updated_at) SELECT ?, ?, tenant_id, id, ?, ?, ?, \
            ?, 0, 0, ?, ?, ? FROM orders WHERE tenant_id = ? AND id = ? -- binds: ";
        for text in [
            debug_query::<Mysql, _>(&insert).to_string(),
            debug_query::<Sqlite, _>(&insert).to_string(),
        ] {
            assert!(text.starts_with(STATEMENT), "{text}");
        }
    }
}
