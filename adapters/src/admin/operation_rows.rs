//! An operation as an admin reads it, with its payment, checked before it becomes the
//! application's view.

use application::admin::AdminOperation;
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use domain::{AttemptError, Generation, OperationState};
use uuid::Uuid;

use crate::payments::read_sql::{payment_columns, payment_view};
use crate::sql::bad_value::bad_row;
use crate::sql::rows::{stored_capture, stored_tenant};
use crate::sql::schema::{operations, payments};

/// An operation's columns and its payment's, as [`Columns`] reads them.
#[dsl::auto_type]
pub(crate) fn admin_columns() -> _ {
    (
        (
            operations::id,
            operations::operation_type,
            operations::tenant_id,
            operations::order_id,
            operations::amount,
            operations::currency,
            operations::state,
            operations::attempts,
            operations::next_attempt_at,
        ),
        (
            operations::lease_owner,
            operations::lease_expires_at,
            operations::generation,
            operations::downstream_key,
            operations::last_error,
            operations::created_at,
            operations::updated_at,
        ),
        {
            let payment: payment_columns = payment_columns();
            payment
        },
    )
}

/// Operations with their payments, for the admin's reads.
#[dsl::auto_type]
pub(crate) fn with_payments() -> _ {
    operations::table
        .left_join(payments::table)
        .select(admin_columns())
}

pub(crate) type Columns = (
    (
        Vec<u8>,
        Vec<u8>,
        i64,
        i64,
        i32,
        Vec<u8>,
        String,
        i32,
        NaiveDateTime,
    ),
    (
        Option<Vec<u8>>,
        Option<NaiveDateTime>,
        i64,
        Vec<u8>,
        Option<String>,
        NaiveDateTime,
        NaiveDateTime,
    ),
    Option<(i64, Vec<u8>, i32, Vec<u8>)>,
);

/// A row that breaks the domain's rules is corrupt and says so.
pub(crate) fn operation_view(
    (
        (id, operation_type, tenant_id, order_id, amount, currency, state, attempts, next),
        (lease_owner, lease_expires_at, generation, downstream_key, last_error, created, updated),
        payment,
    ): Columns,
) -> Result<AdminOperation, StoreError> {
    let corrupt = |column| bad_row("operations", column);
    let text = |bytes: Vec<u8>, column| String::from_utf8(bytes).map_err(|_| corrupt(column));
    let capture = stored_capture(order_id, amount, &currency)?;
    Ok(AdminOperation {
        id: Uuid::from_slice(&id).map_err(|_| corrupt("id"))?,
        operation_type: text(operation_type, "type")?,
        tenant: stored_tenant(tenant_id)?,
        order: capture.order,
        amount: capture.amount,
        currency: capture.currency,
        state: OperationState::from_stored(&state).map_err(|_| corrupt("state"))?,
        attempts: u32::try_from(attempts).map_err(|_| corrupt("attempts"))?,
        next_attempt_at: next.and_utc(),
        lease_owner: lease_owner
            .map(|owner| text(owner, "lease owner"))
            .transpose()?,
        lease_expires_at: lease_expires_at.map(|at| at.and_utc()),
        generation: u64::try_from(generation)
            .map(Generation::new)
            .map_err(|_| corrupt("generation"))?,
        downstream_key: text(downstream_key, "downstream key")?,
        last_error: last_error.as_deref().and_then(AttemptError::from_stored),
        accepted_at: created.and_utc(),
        updated_at: updated.and_utc(),
        payment: payment.map(payment_view).transpose()?,
    })
}
