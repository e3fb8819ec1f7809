//! SQL of a capture's acceptance (contract §7): the pending `operations` row, written in
//! the coordinator's transaction by one statement that copies the order's ids from the
//! tenant's own order, so a missing or foreign order inserts nothing.

use application::ports::{AcceptCaptureError, NewCapture, StoreError};
use chrono::NaiveDateTime;
use diesel::query_builder::{BoxedSqlQuery, QueryFragment, QueryId, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, HasSqlType, Integer, Text, Timestamp};
use diesel_async::RunQueryDsl;
use domain::OperationState;

use super::classify::{Classify, Unique};
use super::connection::SqlConnection;
use super::rows::to_i64;

/// The insert: generation 0, no owner, no attempt yet, due at once; the order's tenant
/// and id come from `orders`, so no row of another tenant can ever be named.
const INSERT_OPERATION: &str = "INSERT INTO operations \
     (id, operation_type, tenant_id, order_id, amount, currency, downstream_key, state, \
      generation, attempts, next_attempt_at, created_at, updated_at) \
     SELECT ?, ?, tenant_id, id, ?, ?, ?, ?, 0, 0, ?, ?, ? \
     FROM orders WHERE tenant_id = ? AND id = ?";

/// Inserts the pending operation; no such order in the tenant is
/// [`AcceptCaptureError::OrderNotFound`], a second active capture of it
/// [`AcceptCaptureError::PaymentExists`].
pub(crate) async fn accept<C>(conn: &mut C, capture: &NewCapture) -> Result<(), AcceptCaptureError>
where
    C: SqlConnection,
    C::Backend: HasSqlType<Binary>
        + HasSqlType<Integer>
        + HasSqlType<Text>
        + HasSqlType<Timestamp>
        + HasSqlType<BigInt>,
    Vec<u8>: ToSql<Binary, C::Backend>,
    i32: ToSql<Integer, C::Backend>,
    i64: ToSql<BigInt, C::Backend>,
    &'static str: ToSql<Text, C::Backend>,
    NaiveDateTime: ToSql<Timestamp, C::Backend>,
    for<'f> BoxedSqlQuery<'f, C::Backend, SqlQuery>: QueryFragment<C::Backend> + QueryId,
{
    let input = &capture.input;
    let amount = i32::try_from(input.amount.get())
        .map_err(|_| StoreError::Other("amount out of range".to_owned()))?;
    let at = capture.accepted_at.naive_utc();
    let insert = diesel::sql_query(INSERT_OPERATION)
        .into_boxed::<C::Backend>()
        .bind::<Binary, _>(capture.id.as_bytes().to_vec())
        .bind::<Binary, _>(capture.operation_type.as_bytes().to_vec())
        .bind::<Integer, _>(amount)
        .bind::<Binary, _>(input.currency.as_str().as_bytes().to_vec())
        .bind::<Binary, _>(capture.downstream_key.as_bytes().to_vec())
        .bind::<Text, _>(OperationState::Pending.as_stored())
        .bind::<Timestamp, _>(at)
        .bind::<Timestamp, _>(at)
        .bind::<Timestamp, _>(at)
        .bind::<BigInt, _>(to_i64(capture.tenant.get())?)
        .bind::<BigInt, _>(to_i64(input.order.get())?);
    match insert.execute(conn).await {
        Ok(0) => Err(AcceptCaptureError::OrderNotFound),
        Ok(_) => Ok(()),
        Err(error) if C::Backend::violates(&error, Unique::ActiveCapture) => {
            Err(AcceptCaptureError::PaymentExists)
        }
        Err(error) => Err(AcceptCaptureError::Store(C::Backend::store_error(error))),
    }
}
