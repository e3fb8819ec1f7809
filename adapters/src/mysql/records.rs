//! SQL of the idempotency record: insert, complete, fresh read.

use application::ports::{InsertRecordError, NewRecord, StoreError};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};
use domain::{Completion, ExistingRecord, IdempotencyKey, RecordId, Scope};

use super::classify::{record_insert_error, store_error};
use super::schema::api_idempotency;
use crate::rows::{COMPLETED, PROCESSING, RecordRow, fingerprint_version, to_i64};

/// The insert of a new `PROCESSING` record. Every value already fits its column: the
/// domain types bound keys (128), operations (64) and the hash (exactly 32 bytes).
#[derive(Insertable)]
#[diesel(table_name = api_idempotency)]
struct NewRecordRow<'a> {
    tenant_id: i64,
    actor_id: i64,
    operation: &'a [u8],
    idempotency_key: &'a [u8],
    fingerprint_version: i16,
    request_hash: &'a [u8],
    state: &'static str,
    created_at: NaiveDateTime,
}

mod sql {

    diesel::define_sql_function! {
        /// MySQL's `LAST_INSERT_ID()`: the id the last insert on this connection made.
        fn last_insert_id() -> Unsigned<BigInt>;
    }
}

/// `SELECT LAST_INSERT_ID()` on the same connection (MySQL has no `RETURNING`). Built as
/// a function call, not a literal, so its prepared statement is cached like the others.
pub(super) async fn last_insert_id(conn: &mut AsyncMysqlConnection) -> QueryResult<u64> {
    diesel::select(sql::last_insert_id()).get_result(conn).await
}

pub(super) async fn insert_processing(
    conn: &mut AsyncMysqlConnection,
    record: &NewRecord,
) -> Result<RecordId, InsertRecordError> {
    let row = NewRecordRow {
        tenant_id: to_i64(record.scope.tenant.get())?,
        actor_id: to_i64(record.scope.actor.get())?,
        operation: record.scope.operation.as_str().as_bytes(),
        idempotency_key: record.key.as_str().as_bytes(),
        fingerprint_version: fingerprint_version(record.fingerprint.version())?,
        request_hash: record.fingerprint.hash(),
        state: PROCESSING,
        created_at: record.created_at.naive_utc(),
    };
    diesel::insert_into(api_idempotency::table)
        .values(&row)
        .execute(conn)
        .await
        .map_err(record_insert_error)?;
    let id = last_insert_id(conn).await.map_err(store_error)?;
    Ok(RecordId(id))
}

pub(super) async fn complete(
    conn: &mut AsyncMysqlConnection,
    id: RecordId,
    completion: &Completion,
) -> Result<u64, StoreError> {
    use api_idempotency::dsl;
    let response = &completion.response;
    let status = i16::try_from(response.status())
        .map_err(|_| StoreError::Other("status out of range".to_owned()))?;
    let changed = diesel::update(
        dsl::api_idempotency
            .filter(dsl::id.eq(to_i64(id.0)?))
            .filter(dsl::state.eq(PROCESSING)),
    )
    .set((
        dsl::state.eq(COMPLETED),
        dsl::response_status.eq(status),
        dsl::response_content_type.eq(response.content_type()),
        dsl::response_location.eq(response.location()),
        dsl::response_body.eq(response.body()),
        dsl::completed_at.eq(completion.completed_at.naive_utc()),
        dsl::expires_at.eq(completion.expires_at.naive_utc()),
    ))
    .execute(conn)
    .await
    .map_err(store_error)?;
    Ok(changed as u64)
}

/// The committed record for a scope and key. Runs as one autocommit statement on the
/// connection it is given: a transaction of its own, seeing the latest committed row.
pub(super) async fn find(
    conn: &mut AsyncMysqlConnection,
    scope: &Scope,
    key: &IdempotencyKey,
) -> Result<Option<ExistingRecord>, StoreError> {
    use api_idempotency::dsl;
    let row: Option<RecordRow> = dsl::api_idempotency
        .filter(dsl::tenant_id.eq(to_i64(scope.tenant.get())?))
        .filter(dsl::actor_id.eq(to_i64(scope.actor.get())?))
        .filter(dsl::operation.eq(scope.operation.as_str().as_bytes()))
        .filter(dsl::idempotency_key.eq(key.as_str().as_bytes()))
        .select(record_columns!())
        .first::<RecordRow>(conn)
        .await
        .optional()
        .map_err(store_error)?;
    row.map(RecordRow::into_record).transpose()
}
