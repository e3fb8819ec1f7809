//! SQL of an operation's status read (`GET /api/operations/{id}`): the operation of the
//! caller's tenant with its payment, if any, in one statement.

use application::ports::{OperationView, PaymentView, StoreError};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use domain::{Amount, Currency, OperationState, OrderId, TenantId};
use uuid::Uuid;

use super::classify::Classify;
use super::connection::SqlConnection;
use super::rows::to_i64;
use super::schema::{operations, payments};

/// An operation and its payment's columns, as read.
#[derive(Queryable)]
pub(crate) struct OperationRow {
    id: Vec<u8>,
    operation_type: Vec<u8>,
    order_id: i64,
    state: String,
    updated_at: NaiveDateTime,
    payment: Option<(i64, Vec<u8>, i32, Vec<u8>)>,
}

impl OperationRow {
    /// The port's view; a row that breaks the domain's rules is corrupt and says so.
    pub(crate) fn into_view(self) -> Result<OperationView, StoreError> {
        let corrupt = |what: &str| StoreError::Other(format!("operation row: bad {what}"));
        let payment = self
            .payment
            .map(|(id, charge, amount, currency)| {
                Ok::<_, StoreError>(PaymentView {
                    id: u64::try_from(id).map_err(|_| corrupt("payment id"))?,
                    provider_charge_id: String::from_utf8(charge)
                        .map_err(|_| corrupt("charge id"))?,
                    amount: Amount::parse(i64::from(amount)).map_err(|_| corrupt("amount"))?,
                    currency: std::str::from_utf8(&currency)
                        .ok()
                        .and_then(|c| Currency::parse(c).ok())
                        .ok_or_else(|| corrupt("currency"))?,
                })
            })
            .transpose()?;
        Ok(OperationView {
            id: Uuid::from_slice(&self.id).map_err(|_| corrupt("id"))?,
            operation_type: String::from_utf8(self.operation_type).map_err(|_| corrupt("type"))?,
            order: u64::try_from(self.order_id)
                .map(OrderId::new)
                .map_err(|_| corrupt("order"))?,
            state: OperationState::from_stored(&self.state).map_err(|_| corrupt("state"))?,
            payment,
            updated_at: self.updated_at.and_utc(),
        })
    }
}

/// The columns of [`OperationRow`], in its field order.
#[dsl::auto_type]
pub(crate) fn view_columns() -> _ {
    (
        operations::id,
        operations::operation_type,
        operations::order_id,
        operations::state,
        operations::updated_at,
        (
            payments::id,
            payments::provider_charge_id,
            payments::amount,
            payments::currency,
        )
            .nullable(),
    )
}

/// The operation `id` of `tenant`, with its payment.
#[dsl::auto_type]
pub(crate) fn by_tenant_id(tenant: i64, id: Vec<u8>) -> _ {
    operations::table
        .left_join(payments::table)
        .filter(operations::id.eq(id))
        .filter(operations::tenant_id.eq(tenant))
        .select(view_columns())
}

/// The read of [`find`], for a store that wraps it (MySQL's causal read on Galera).
///
/// # Errors
/// [`StoreError::Other`] for a tenant out of range.
pub(crate) fn find_query(tenant: TenantId, id: Uuid) -> Result<Limit<by_tenant_id>, StoreError> {
    Ok(by_tenant_id(to_i64(tenant.get())?, id.as_bytes().to_vec()).limit(1))
}

/// The operation with `id` in `tenant`; another tenant's is simply not found.
pub(crate) async fn find<C>(
    conn: &mut C,
    tenant: TenantId,
    id: Uuid,
) -> Result<Option<OperationView>, StoreError>
where
    C: SqlConnection,
    Limit<by_tenant_id>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<view_columns>>,
    OperationRow: FromSqlRow<SqlTypeOf<view_columns>, C::Backend>,
{
    let row: Option<OperationRow> = find_query(tenant, id)?
        .get_result::<OperationRow>(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    row.map(OperationRow::into_view).transpose()
}
