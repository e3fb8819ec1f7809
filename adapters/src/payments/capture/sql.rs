//! The capture's acceptance: the tenant's active order takes it (its revision goes up, a
//! write a cancel of the order would conflict with), then the pending `operations` row is
//! inserted. A missing, foreign or cancelled order inserts nothing.

use application::StepError;
use application::leased::{Ended, NewOperation};
use application::payments::{CaptureAcceptance, CaptureJob, CaptureRefusal, PaymentRecords};
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use domain::OrderStatus;

use crate::leased::{
    InsertOperation, InsertOperations, InsertTrace, InsertTraces, insert_operation,
    insert_operations,
};
use crate::orders::{TakeActiveOrder, TakeActiveOrders, all_written, order_pairs};
use crate::sql::bad_value::OutOfRange;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::{Classify, Unique, refused_on};
use crate::sql::connection::SqlConnection;
use crate::sql::pairs_in::PairsIn;
use crate::sql::rows::to_i64;
use crate::sql::schema::{orders, payments};

/// One pending or succeeded capture per order (a partial index on SQLite, a generated
/// column on MySQL): its violation is the acceptance's refusal.
pub(crate) const ACTIVE_CAPTURE: Unique = Unique {
    index: "uq_operations_active_order",
    sqlite_message: "UNIQUE constraint failed: operations.tenant_id, operations.order_id",
};

const ACTIVE: &str = OrderStatus::Active.as_stored();

/// Why the order did not take the capture.
#[dsl::auto_type]
fn order_status(tenant: i64, order: i64) -> _ {
    orders::table
        .filter(orders::id.eq(order))
        .filter(orders::tenant_id.eq(tenant))
        .select(orders::status)
}

/// A succeeded capture's payment.
#[derive(Insertable)]
#[diesel(table_name = payments)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewPaymentRow<'a> {
    operation_id: &'a [u8],
    tenant_id: i64,
    order_id: i64,
    provider_charge_id: &'a [u8],
    amount: i32,
    currency: &'a [u8],
    created_at: NaiveDateTime,
}

pub(crate) type InsertPayment<'a> = Values<dsl::insert_into<payments::table>, NewPaymentRow<'a>>;

/// No active order of the tenant, or a second active capture of it, is the refusal.
pub(crate) async fn accept<'a, C>(
    conn: &mut C,
    operation: &'a NewOperation,
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
    let (tenant, order) = (
        to_i64(operation.tenant.get())?,
        to_i64(operation.order.get())?,
    );
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
    insert_operation(conn, operation, |error| {
        refused_on::<C::Backend, _>(error, ACTIVE_CAPTURE, CaptureRefusal::PaymentExists)
    })
    .await
}

/// The payment of the succeeded capture `ended`: its id.
pub(crate) async fn insert_payment<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    ended: &Ended<'_, CaptureJob>,
    provider_charge_id: &'a str,
    operation_id: &'a [u8],
    currency: &'a [u8],
) -> Result<u64, StoreError>
where
    C: SqlConnection,
    InsertPayment<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let row = NewPaymentRow {
        operation_id,
        tenant_id: to_i64(ended.tenant.get())?,
        order_id: to_i64(ended.order.get())?,
        provider_charge_id: provider_charge_id.as_bytes(),
        amount: i32::try_from(ended.job.amount.get())
            .map_err(|_| StoreError::from(OutOfRange("amount")))?,
        currency,
        created_at: ended.at.naive_utc(),
    };
    conn.insert_returning_id(ids, diesel::insert_into(payments::table).values(row))
        .await
        .map_err(C::Backend::store_error)
}

/// A batch's captures, whose orders its locking read found active and without one: the
/// orders taken in one `UPDATE`, the operations inserted in one statement. An active
/// capture met anyway is the refusal, which runs the batch's members alone.
pub(crate) async fn accept_all<'a, C>(
    conn: &mut C,
    accepted: &'a [(&'a NewOperation, &'a tracing::Span)],
) -> Result<(), StepError<CaptureRefusal>>
where
    C: SqlConnection,
    TakeActiveOrders: QueryFragment<C::Backend>,
    InsertOperations<'a>: QueryFragment<C::Backend> + QueryId + Send,
    InsertTraces<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let orders: Vec<_> = accepted
        .iter()
        .map(|(operation, _)| (operation.tenant, operation.order))
        .collect();
    let taken = TakeActiveOrders(PairsIn::new(
        orders::id,
        orders::tenant_id,
        order_pairs(&orders)?,
    ))
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    all_written(taken, accepted.len())?;
    insert_operations(conn, accepted, |error| {
        refused_on::<C::Backend, _>(error, ACTIVE_CAPTURE, CaptureRefusal::PaymentExists)
    })
    .await
}

for_both_transactions! {
    impl CaptureAcceptance {
        async fn accept_capture(
            &mut self,
            operation: &NewOperation,
        ) -> Result<(), StepError<CaptureRefusal>> {
            self.run("operation insert", async |conn, _| accept(conn, operation).await)
                .await
        }

        async fn accept_captures(
            &mut self,
            accepted: &[(&NewOperation, &tracing::Span)],
        ) -> Result<(), StepError<CaptureRefusal>> {
            self.run("operations batch insert", async |conn, _| {
                accept_all(conn, accepted).await
            })
            .await
        }
    }
}

for_both_transactions! {
    impl PaymentRecords {
        async fn insert_payment(
            &mut self,
            ended: &Ended<'_, CaptureJob>,
            provider_charge_id: &str,
        ) -> Result<u64, StoreError> {
            let (id, currency) = (ended.id.as_bytes(), ended.job.currency.as_str().as_bytes());
            self.run("payment insert", async |conn, ids| {
                insert_payment(conn, ids, ended, provider_charge_id, id, currency).await
            })
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
