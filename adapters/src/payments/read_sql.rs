//! The status read: the operation of the caller's tenant with its payment, if any, in
//! one statement; and its port on both stores.

use application::ports::{OperationReader, OperationView, PaymentView, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Limit};
use diesel::prelude::*;
use domain::{Amount, Currency, OperationState, OrderId, TenantId};
use uuid::Uuid;

use crate::sql::bad_value::bad_row;
use crate::sql::both_stores::for_both_stores;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operations, payments};

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
    /// A row that breaks the domain's rules is corrupt and says so.
    pub(crate) fn into_view(self) -> Result<OperationView, StoreError> {
        let corrupt = |column| bad_row("operations", column);
        let payment = self.payment.map(payment_view).transpose()?;
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

/// The payment columns of [`payment_columns`], checked.
pub(crate) fn payment_view(
    (id, charge, amount, currency): (i64, Vec<u8>, i32, Vec<u8>),
) -> Result<PaymentView, StoreError> {
    let corrupt = |column| bad_row("payments", column);
    Ok(PaymentView {
        id: u64::try_from(id).map_err(|_| corrupt("id"))?,
        provider_charge_id: String::from_utf8(charge).map_err(|_| corrupt("charge id"))?,
        amount: Amount::parse(i64::from(amount)).map_err(|_| corrupt("amount"))?,
        currency: std::str::from_utf8(&currency)
            .ok()
            .and_then(|c| Currency::parse(c).ok())
            .ok_or_else(|| corrupt("currency"))?,
    })
}

/// A left-joined payment's columns, `NULL` when there is none.
#[dsl::auto_type]
pub(crate) fn payment_columns() -> _ {
    (
        payments::id,
        payments::provider_charge_id,
        payments::amount,
        payments::currency,
    )
        .nullable()
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
        {
            let payment: payment_columns = payment_columns();
            payment
        },
    )
}

#[dsl::auto_type]
pub(crate) fn by_tenant_id(tenant: i64, id: Vec<u8>) -> _ {
    operations::table
        .left_join(payments::table)
        .filter(operations::id.eq(id))
        .filter(operations::tenant_id.eq(tenant))
        .select(view_columns())
}

/// Another tenant's operation is simply not found.
///
/// # Errors
/// [`StoreError::Other`] for a tenant out of range.
pub(crate) fn find_query(tenant: TenantId, id: Uuid) -> Result<Limit<by_tenant_id>, StoreError> {
    Ok(by_tenant_id(to_i64(tenant.get())?, id.as_bytes().to_vec()).limit(1))
}

for_both_stores! {
    impl OperationReader {
        async fn find_operation(
            &self,
            tenant: TenantId,
            id: Uuid,
        ) -> Result<Option<OperationView>, StoreError> {
            self.find_one("operation read", find_query(tenant, id)?, OperationRow::into_view)
                .await
        }
    }
}
