//! The status read: the operation of the caller's tenant, with the result member its kind
//! stored, in one statement; and its port on both stores.

use application::ports::{OperationReader, OperationView, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Limit};
use diesel::prelude::*;
use domain::{OperationState, TenantId};
use uuid::Uuid;

use super::members::stored_members;
use crate::sql::bad_value::bad_row;
use crate::sql::both_stores::for_both_stores;
use crate::sql::rows::{stored_order, to_i64};
use crate::sql::schema::operations;

#[derive(Queryable)]
pub(crate) struct OperationRow {
    id: Vec<u8>,
    operation_type: Vec<u8>,
    order_id: i64,
    state: String,
    updated_at: NaiveDateTime,
    result: Vec<u8>,
}

impl OperationRow {
    /// A row that breaks the domain's rules is corrupt and says so.
    pub(crate) fn into_view(self) -> Result<OperationView, StoreError> {
        let corrupt = |column| bad_row("operations", column);
        Ok(OperationView {
            id: Uuid::from_slice(&self.id).map_err(|_| corrupt("id"))?,
            operation_type: String::from_utf8(self.operation_type).map_err(|_| corrupt("type"))?,
            order: stored_order(self.order_id)?,
            state: OperationState::from_stored(&self.state).map_err(|_| corrupt("state"))?,
            result: stored_members(&self.result, "result")?,
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
        operations::result,
    )
}

#[dsl::auto_type]
pub(crate) fn by_tenant_id(tenant: i64, id: Vec<u8>) -> _ {
    operations::table
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
