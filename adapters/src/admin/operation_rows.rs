//! An operation as an admin reads it, with its kind's input and result as stored and the
//! trace it was accepted in, checked before it becomes the application's view.

use application::admin::AdminOperation;
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use domain::{AttemptError, Generation, OperationState};
use uuid::Uuid;

use crate::leased::stored_members;
use crate::sql::bad_value::bad_row;
use crate::sql::rows::{stored_order, stored_tenant};
use crate::sql::schema::{operation_traces, operations};
use crate::telemetry::trace_id;

/// An operation's columns, as [`Columns`] reads them.
#[dsl::auto_type]
pub(crate) fn admin_columns() -> _ {
    (
        (
            operations::id,
            operations::operation_type,
            operations::tenant_id,
            operations::order_id,
            operations::input,
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
            operations::result,
            operation_traces::trace_context.nullable(),
        ),
    )
}

/// Operations, for the admin's reads, each with the trace of its acceptance: no row in
/// `operation_traces` when tracing was off, hence a left join (on its primary key).
#[dsl::auto_type]
pub(crate) fn admin_operations() -> _ {
    operations::table
        .left_join(operation_traces::table)
        .select(admin_columns())
}

pub(crate) type Columns = (
    (
        Vec<u8>,
        Vec<u8>,
        i64,
        i64,
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
        Vec<u8>,
        Option<String>,
    ),
);

/// A row that breaks the domain's rules is corrupt and says so.
pub(crate) fn operation_view(
    (
        (id, operation_type, tenant_id, order_id, input, state, attempts, next),
        (
            lease_owner,
            lease_expires_at,
            generation,
            downstream_key,
            last_error,
            created,
            updated,
            result,
            trace_context,
        ),
    ): Columns,
) -> Result<AdminOperation, StoreError> {
    let corrupt = |column| bad_row("operations", column);
    let text = |bytes: Vec<u8>, column| String::from_utf8(bytes).map_err(|_| corrupt(column));
    Ok(AdminOperation {
        id: Uuid::from_slice(&id).map_err(|_| corrupt("id"))?,
        operation_type: text(operation_type, "type")?,
        tenant: stored_tenant(tenant_id)?,
        order: stored_order(order_id)?,
        input: stored_members(&input, "input")?,
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
        result: stored_members(&result, "result")?,
        // One of another shape names no trace to find: the rest of the row still helps.
        trace_id: trace_context
            .as_deref()
            .and_then(trace_id)
            .map(str::to_owned),
    })
}
