//! SQL of the idempotency record: insert, complete, fresh read.

use application::ports::{InsertRecordError, NewRecord, StoreError};
use chrono::NaiveDateTime;
use diesel::mysql::Mysql;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Blob, Datetime, Nullable, SmallInt, Varchar};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};
use domain::{Completion, ExistingRecord, IdempotencyKey, RecordId, Scope};

use super::classify::{record_insert_error, store_error};
use super::insert_id::{InsertIds, insert_returning_id};
use super::schema::api_idempotency;
use crate::rows::{COMPLETED, PROCESSING, RecordRow, fingerprint_version, to_i64};

/// The insert of a new `PROCESSING` record. Every value already fits its column: the
/// domain types bound keys (128), operations (64) and the hash (exactly 32 bytes).
#[derive(Insertable)]
#[diesel(table_name = api_idempotency)]
// Every field is a plain value: with diesel's default (`None` as `DEFAULT`) each becomes a
// defaultable value, which makes MySQL statements uncacheable (prepared and closed on
// every insert).
#[diesel(treat_none_as_default_value = false)]
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

pub(super) async fn insert_processing(
    conn: &mut AsyncMysqlConnection,
    ids: InsertIds,
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
    let insert = diesel::insert_into(api_idempotency::table).values(&row);
    let id = insert_returning_id(conn, ids, insert)
        .await
        .map_err(record_insert_error)?;
    Ok(RecordId(id))
}

pub(super) async fn complete(
    conn: &mut AsyncMysqlConnection,
    id: RecordId,
    completion: &Completion,
) -> Result<u64, StoreError> {
    let response = &completion.response;
    let update = CompleteRecord {
        id: to_i64(id.0)?,
        status: i16::try_from(response.status())
            .map_err(|_| StoreError::Other("status out of range".to_owned()))?,
        content_type: response.content_type(),
        location: response.location(),
        body: response.body(),
        completed_at: completion.completed_at.naive_utc(),
        expires_at: completion.expires_at.naive_utc(),
    };
    let changed = update.execute(conn).await.map_err(store_error)?;
    Ok(changed as u64)
}

/// `UPDATE ... SET state = 'COMPLETED', <response> WHERE id = ? AND state = 'PROCESSING'`,
/// as a query type of its own: diesel marks every DSL `UPDATE` as not cacheable, which
/// would prepare and close this statement on every create. This one has a static query
/// id, so each connection prepares it once.
struct CompleteRecord<'a> {
    id: i64,
    status: i16,
    content_type: &'a str,
    location: Option<&'a str>,
    body: &'a [u8],
    completed_at: NaiveDateTime,
    expires_at: NaiveDateTime,
}

/// The static query id of [`CompleteRecord`].
struct CompleteRecordQuery;

impl QueryId for CompleteRecord<'_> {
    type QueryId = CompleteRecordQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Mysql> for CompleteRecord<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Mysql>) -> QueryResult<()> {
        out.push_sql("UPDATE `api_idempotency` SET `state` = '");
        out.push_sql(COMPLETED);
        out.push_sql("', `response_status` = ");
        out.push_bind_param::<SmallInt, _>(&self.status)?;
        out.push_sql(", `response_content_type` = ");
        out.push_bind_param::<Varchar, _>(&self.content_type)?;
        out.push_sql(", `response_location` = ");
        out.push_bind_param::<Nullable<Varchar>, _>(&self.location)?;
        out.push_sql(", `response_body` = ");
        out.push_bind_param::<Blob, _>(&self.body)?;
        out.push_sql(", `completed_at` = ");
        out.push_bind_param::<Datetime, _>(&self.completed_at)?;
        out.push_sql(", `expires_at` = ");
        out.push_bind_param::<Datetime, _>(&self.expires_at)?;
        out.push_sql(" WHERE `id` = ");
        out.push_bind_param::<BigInt, _>(&self.id)?;
        out.push_sql(" AND `state` = '");
        out.push_sql(PROCESSING);
        out.push_sql("'");
        Ok(())
    }
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
