//! A batch of refund acceptances (`docs/storage.md#batched-operations`): the members'
//! payments read in one statement without a lock, then every amount reserved in one
//! conditional `UPDATE` that checks each payment's balance again as it locks the row, so a
//! refund accepted meanwhile elsewhere can only make the batch fall short (and its members
//! run alone), never go over.

use application::StepError;
use application::leased::NewOperation;
use application::payments::{RefundRefusal, RefundableCharge};
use application::ports::StoreError;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Integer};
use diesel_async::RunQueryDsl;
use domain::{Amount, OrderId, TenantId};

use super::charge::captured_charge;
use crate::leased::{InsertOperations, InsertTraces, insert_operations};
use crate::sql::bad_value::{OutOfRange, bad};
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::pairs_in::{PairsIn, in_wanted_order};
use crate::sql::rows::to_i64;
use crate::sql::schema::payments;

type PaymentRow = (i64, i64, Vec<u8>, Vec<u8>, i32, i32);
type PaymentSql = (BigInt, BigInt, Binary, Binary, Integer, Integer);

/// Through `ix_payments_order (tenant_id, order_id)`, as one refund's read is.
#[diesel::dsl::auto_type]
fn payments_query(pairs: Vec<(i64, i64)>) -> _ {
    let among: PairsIn<payments::tenant_id, payments::order_id> =
        PairsIn::new(payments::tenant_id, payments::order_id, pairs);
    payments::table.filter(among).select((
        payments::tenant_id,
        payments::order_id,
        payments::provider_charge_id,
        payments::currency,
        payments::amount,
        payments::refunded,
    ))
}

/// `UPDATE payments SET refunded = refunded + CASE WHEN <pair> THEN ? ... END WHERE
/// (<pair> AND amount - refunded >= ?) OR ...`: each payment takes its member's amount
/// only while it has that much left. The text depends only on the number of members.
pub(crate) struct ReserveRefunds(Vec<(i64, i64, i32)>);

impl QueryId for ReserveRefunds {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> QueryFragment<DB> for ReserveRefunds
where
    i64: ToSql<BigInt, DB>,
    i32: ToSql<Integer, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE payments SET refunded = refunded + CASE");
        for (tenant, order, amount) in &self.0 {
            out.push_sql(" WHEN tenant_id = ");
            out.push_bind_param::<BigInt, _>(tenant)?;
            out.push_sql(" AND order_id = ");
            out.push_bind_param::<BigInt, _>(order)?;
            out.push_sql(" THEN ");
            out.push_bind_param::<Integer, _>(amount)?;
        }
        out.push_sql(" END WHERE ");
        for (n, (tenant, order, amount)) in self.0.iter().enumerate() {
            out.push_sql(if n == 0 { "(" } else { " OR (" });
            out.push_sql("tenant_id = ");
            out.push_bind_param::<BigInt, _>(tenant)?;
            out.push_sql(" AND order_id = ");
            out.push_bind_param::<BigInt, _>(order)?;
            out.push_sql(" AND amount - refunded >= ");
            out.push_bind_param::<Integer, _>(amount)?;
            out.push_sql(")");
        }
        Ok(())
    }
}

/// Each of `wanted`'s payment with what it has left, in `wanted`'s order.
pub(crate) async fn refundable<C>(
    conn: &mut C,
    wanted: &[(TenantId, OrderId)],
) -> Result<Vec<Option<RefundableCharge>>, StoreError>
where
    C: SqlConnection,
    payments_query: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<PaymentSql>,
    PaymentRow: FromSqlRow<PaymentSql, C::Backend>,
{
    let pairs = wanted
        .iter()
        .map(|(tenant, order)| Ok((to_i64(tenant.get())?, to_i64(order.get())?)))
        .collect::<Result<Vec<(i64, i64)>, StoreError>>()?;
    let rows: Vec<PaymentRow> = payments_query(pairs.clone())
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    in_wanted_order(&pairs, &rows, |row| (row.0, row.1), charge_of)
}

fn charge_of(row: &PaymentRow) -> Result<RefundableCharge, StoreError> {
    let (_, _, charge, currency, amount, refunded) = row;
    Ok(RefundableCharge {
        captured: captured_charge(charge.clone(), currency)?,
        left: u32::try_from(amount - refunded).map_err(bad("payments", "refunded"))?,
    })
}

/// The batch's reservations in one statement, then its operations in one insert. A
/// payment that no longer has its member's amount left is the refusal, which runs the
/// batch's members alone.
pub(crate) async fn accept_all<'a, C>(
    conn: &mut C,
    accepted: &'a [(&'a NewOperation, Amount, &'a tracing::Span)],
    operations: &'a [(&'a NewOperation, &'a tracing::Span)],
) -> Result<(), StepError<RefundRefusal>>
where
    C: SqlConnection,
    ReserveRefunds: QueryFragment<C::Backend>,
    InsertOperations<'a>: QueryFragment<C::Backend> + QueryId + Send,
    InsertTraces<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let reservations = accepted
        .iter()
        .map(|(operation, amount, _)| {
            Ok((
                to_i64(operation.tenant.get())?,
                to_i64(operation.order.get())?,
                i32::try_from(amount.get()).map_err(|_| OutOfRange("amount"))?,
            ))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let reserved = ReserveRefunds(reservations)
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    if reserved != accepted.len() {
        return Err(StepError::Rejected(RefundRefusal::ExceedsCaptured));
    }
    insert_operations(conn, operations, |error| {
        StepError::Store(C::Backend::store_error(error))
    })
    .await
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn each_payment_takes_its_own_amount_only_while_it_has_it_left() {
        let reserve = ReserveRefunds(vec![(1, 9, 500), (2, 10, 70)]);
        for text in [
            debug_query::<Mysql, _>(&reserve).to_string(),
            debug_query::<Sqlite, _>(&reserve).to_string(),
        ] {
            assert_eq!(
                text,
                "UPDATE payments SET refunded = refunded + CASE \
                 WHEN tenant_id = ? AND order_id = ? THEN ? \
                 WHEN tenant_id = ? AND order_id = ? THEN ? END WHERE \
                 (tenant_id = ? AND order_id = ? AND amount - refunded >= ?) OR \
                 (tenant_id = ? AND order_id = ? AND amount - refunded >= ?) \
                 -- binds: [1, 9, 500, 2, 10, 70, 1, 9, 500, 2, 10, 70]"
            );
        }
    }
}
