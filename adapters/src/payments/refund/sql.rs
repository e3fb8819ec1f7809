//! The refund's SQL. The order's payment keeps what its refunds not declined add up to
//! (`payments.refunded`, migration `000011`): an acceptance raises it only while it stays
//! within the payment's amount, in one conditional `UPDATE` that row-locks the payment, so
//! concurrent refunds of one order take turns and never accept more than was captured. A
//! declined refund gives its amount back; a succeeded one is a row of `refunds`.

use application::StepError;
use application::leased::{Ended, NewOperation};
use application::payments::{
    CapturedCharge, RefundAcceptance, RefundJob, RefundRecords, RefundRefusal, RefundableCharge,
};
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Integer};
use diesel_async::RunQueryDsl;
use domain::{Amount, OrderId, TenantId};

use super::batch_sql::{accept_all, refundable};
use super::charge::captured_charge;
use crate::leased::{InsertOperation, InsertTrace, insert_operation};
use crate::sql::bad_value::OutOfRange;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::rows::to_i64;
use crate::sql::schema::{orders, payments};

diesel::table! {
    /// A succeeded refund: at most one per operation.
    refunds (id) {
        id -> BigInt,
        operation_id -> Binary,
        tenant_id -> BigInt,
        order_id -> BigInt,
        provider_refund_id -> Binary,
        amount -> Integer,
        currency -> Binary,
        created_at -> Timestamp,
    }
}

/// `UPDATE payments SET refunded = refunded + ? ... AND amount - refunded >= ?` to reserve
/// (`RESERVE`), `refunded - ?` to give back. Hand-written: diesel prepares a DSL `UPDATE`
/// anew on every call.
pub(crate) struct ShiftRefunded<const RESERVE: bool> {
    tenant: i64,
    order: i64,
    amount: i32,
}

pub(crate) struct ShiftRefundedQuery<const RESERVE: bool>;

impl<const RESERVE: bool> QueryId for ShiftRefunded<RESERVE> {
    type QueryId = ShiftRefundedQuery<RESERVE>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend, const RESERVE: bool> QueryFragment<DB> for ShiftRefunded<RESERVE>
where
    i64: ToSql<BigInt, DB>,
    i32: ToSql<Integer, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(if RESERVE {
            "UPDATE payments SET refunded = refunded + "
        } else {
            "UPDATE payments SET refunded = refunded - "
        });
        out.push_bind_param::<Integer, _>(&self.amount)?;
        out.push_sql(" WHERE tenant_id = ");
        out.push_bind_param::<BigInt, _>(&self.tenant)?;
        out.push_sql(" AND order_id = ");
        out.push_bind_param::<BigInt, _>(&self.order)?;
        if RESERVE {
            out.push_sql(" AND amount - refunded >= ");
            out.push_bind_param::<Integer, _>(&self.amount)?;
        }
        Ok(())
    }
}

impl<const RESERVE: bool> ShiftRefunded<RESERVE> {
    fn of(tenant: TenantId, order: OrderId, amount: Amount) -> Result<Self, StoreError> {
        Ok(Self {
            tenant: to_i64(tenant.get())?,
            order: to_i64(order.get())?,
            amount: i32::try_from(amount.get()).map_err(|_| OutOfRange("amount"))?,
        })
    }
}

#[dsl::auto_type]
fn payment_of(tenant: i64, order: i64) -> _ {
    payments::table
        .filter(payments::tenant_id.eq(tenant))
        .filter(payments::order_id.eq(order))
        .select((payments::provider_charge_id, payments::currency))
}

#[dsl::auto_type]
fn order_of(tenant: i64, order: i64) -> _ {
    orders::table
        .filter(orders::id.eq(order))
        .filter(orders::tenant_id.eq(tenant))
        .select(orders::id)
}

#[derive(Insertable)]
#[diesel(table_name = refunds)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewRefundRow<'a> {
    operation_id: &'a [u8],
    tenant_id: i64,
    order_id: i64,
    provider_refund_id: &'a [u8],
    amount: i32,
    currency: &'a [u8],
    created_at: NaiveDateTime,
}

pub(crate) type InsertRefund<'a> = Values<dsl::insert_into<refunds::table>, NewRefundRow<'a>>;

/// The payment's charge, or why there is none to refund.
pub(crate) async fn captured<C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
) -> Result<CapturedCharge, StepError<RefundRefusal>>
where
    C: SqlConnection,
    Limit<payment_of>: QueryFragment<C::Backend>,
    Limit<order_of>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(Binary, Binary)> + QueryMetadata<BigInt>,
    (Vec<u8>, Vec<u8>): FromSqlRow<(Binary, Binary), C::Backend>,
    i64: FromSqlRow<BigInt, C::Backend>,
{
    let (tenant_id, order_id) = (to_i64(tenant.get())?, to_i64(order.get())?);
    let payment: Option<(Vec<u8>, Vec<u8>)> = payment_of(tenant_id, order_id)
        .first(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    let Some((charge, currency)) = payment else {
        let found: Option<i64> = order_of(tenant_id, order_id)
            .first(conn)
            .await
            .optional()
            .map_err(C::Backend::store_error)?;
        return Err(StepError::Rejected(match found {
            Some(_) => RefundRefusal::NotRefundable,
            None => RefundRefusal::OrderNotFound,
        }));
    };
    Ok(captured_charge(charge, &currency)?)
}

/// Reserves the amount, or refuses it as more than the payment has left.
pub(crate) async fn accept<'a, C>(
    conn: &mut C,
    operation: &'a NewOperation,
    amount: Amount,
) -> Result<(), StepError<RefundRefusal>>
where
    C: SqlConnection,
    ShiftRefunded<true>: QueryFragment<C::Backend>,
    InsertOperation<'a>: QueryFragment<C::Backend>,
    InsertTrace<'a>: QueryFragment<C::Backend>,
{
    let reserved = ShiftRefunded::<true>::of(operation.tenant, operation.order, amount)?
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    if reserved == 0 {
        return Err(StepError::Rejected(RefundRefusal::ExceedsCaptured));
    }
    insert_operation(conn, operation, |error| {
        StepError::Store(C::Backend::store_error(error))
    })
    .await
}

pub(crate) async fn insert_refund<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    ended: &Ended<'_, RefundJob>,
    provider_refund_id: &'a str,
    operation_id: &'a [u8],
    currency: &'a [u8],
) -> Result<u64, StoreError>
where
    C: SqlConnection,
    InsertRefund<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let row = NewRefundRow {
        operation_id,
        tenant_id: to_i64(ended.tenant.get())?,
        order_id: to_i64(ended.order.get())?,
        provider_refund_id: provider_refund_id.as_bytes(),
        amount: i32::try_from(ended.job.amount.get()).map_err(|_| OutOfRange("amount"))?,
        currency,
        created_at: ended.at.naive_utc(),
    };
    conn.insert_returning_id(ids, diesel::insert_into(refunds::table).values(row))
        .await
        .map_err(C::Backend::store_error)
}

pub(crate) async fn release<C>(conn: &mut C, ended: &Ended<'_, RefundJob>) -> Result<(), StoreError>
where
    C: SqlConnection,
    ShiftRefunded<false>: QueryFragment<C::Backend>,
{
    ShiftRefunded::<false>::of(ended.tenant, ended.order, ended.job.amount)?
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(())
}

for_both_transactions! {
    impl RefundAcceptance {
        async fn captured_charge(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> Result<CapturedCharge, StepError<RefundRefusal>> {
            self.run("payment read", async |conn, _| captured(conn, tenant, order).await)
                .await
        }

        async fn accept_refund(
            &mut self,
            operation: &NewOperation,
            amount: Amount,
        ) -> Result<(), StepError<RefundRefusal>> {
            self.run("operation insert", async |conn, _| accept(conn, operation, amount).await)
                .await
        }

        async fn refundable_charges(
            &mut self,
            orders: &[(TenantId, OrderId)],
        ) -> Result<Vec<Option<RefundableCharge>>, StoreError> {
            self.run("payments read", async |conn, _| refundable(conn, orders).await)
                .await
        }

        async fn accept_refunds(
            &mut self,
            accepted: &[(&NewOperation, Amount, &tracing::Span)],
        ) -> Result<(), StepError<RefundRefusal>> {
            let operations: Vec<_> = accepted
                .iter()
                .map(|(operation, _, span)| (*operation, *span))
                .collect();
            self.run("operations batch insert", async |conn, _| {
                accept_all(conn, accepted, &operations).await
            })
            .await
        }
    }
}

for_both_transactions! {
    impl RefundRecords {
        async fn insert_refund(
            &mut self,
            ended: &Ended<'_, RefundJob>,
            provider_refund_id: &str,
        ) -> Result<u64, StoreError> {
            let (id, currency) = (ended.id.as_bytes(), ended.job.currency.as_str().as_bytes());
            self.run("refund insert", async |conn, ids| {
                insert_refund(conn, ids, ended, provider_refund_id, id, currency).await
            })
            .await
        }

        async fn release_refund(&mut self, ended: &Ended<'_, RefundJob>) -> Result<(), StoreError> {
            self.run("refund release", async |conn, _| release(conn, ended).await)
                .await
        }
    }
}

#[cfg(test)]
mod tests;
