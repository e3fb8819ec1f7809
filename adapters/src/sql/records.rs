//! SQL of the idempotency record: insert, complete, fresh read.

use application::ports::{
    CommitError, InsertRecordError, NewRecord, RecordReader, RecordTx, StoreError,
};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Limit, Values};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use domain::{Completion, ExistingRecord, IdempotencyKey, RecordId, Scope};

use super::both_stores::{for_both_stores, for_both_transactions};
use super::classify::{Classify, record_insert_error};
use super::complete_record::CompleteRecord;
use super::connection::SqlConnection;
use super::records_batch::{complete_batch, insert_processing_batch};
use super::rendered_once::RenderedOnce;
use super::rows::{PROCESSING, RecordRow, fingerprint_version, record_columns, to_i64};
use super::schema::api_idempotency;

/// Every value already fits its column: the domain bounds keys (128 bytes), operations
/// (64) and the hash (exactly 32).
#[derive(Insertable)]
#[diesel(table_name = api_idempotency)]
// Plain values: diesel's default (`None` as `DEFAULT`) makes MySQL statements uncacheable
// (prepared and closed on every insert).
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewRecordRow<'a> {
    tenant_id: i64,
    actor_id: i64,
    operation: &'a [u8],
    idempotency_key: &'a [u8],
    fingerprint_version: i16,
    request_hash: &'a [u8],
    state: &'static str,
    created_at: NaiveDateTime,
}

impl<'a> NewRecordRow<'a> {
    /// `PROCESSING`, as every record begins.
    pub(crate) fn processing(record: &'a NewRecord) -> Result<Self, StoreError> {
        Ok(Self {
            tenant_id: to_i64(record.scope.tenant.get())?,
            actor_id: to_i64(record.scope.actor.get())?,
            operation: record.scope.operation.as_str().as_bytes(),
            idempotency_key: record.key.as_str().as_bytes(),
            fingerprint_version: fingerprint_version(record.fingerprint.version())?,
            request_hash: record.fingerprint.hash(),
            state: PROCESSING,
            created_at: record.created_at.naive_utc(),
        })
    }
}

pub(crate) type InsertRecord<'a> =
    Values<dsl::insert_into<api_idempotency::table>, NewRecordRow<'a>>;

/// A record already holding the scope and key is
/// [`InsertRecordError::KeyAlreadyRegistered`].
pub(crate) async fn insert_processing<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    record: &'a NewRecord,
) -> Result<RecordId, InsertRecordError>
where
    C: SqlConnection,
    InsertRecord<'a>: QueryFragment<C::Backend>,
{
    let insert =
        diesel::insert_into(api_idempotency::table).values(NewRecordRow::processing(record)?);
    let id = conn
        .insert_returning_id(ids, insert)
        .await
        .map_err(record_insert_error::<C::Backend>)?;
    Ok(RecordId(id))
}

/// Returns how many rows changed: 0 when the record is not, or no longer, `PROCESSING`.
pub(crate) async fn complete<'a, C>(
    conn: &mut C,
    id: RecordId,
    completion: &'a Completion,
) -> Result<u64, StoreError>
where
    C: SqlConnection,
    RenderedOnce<CompleteRecord<'a>>: QueryFragment<C::Backend>,
{
    let changed = RenderedOnce(CompleteRecord::of(id, completion)?)
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(changed as u64)
}

#[dsl::auto_type]
pub(crate) fn by_scope_key<'a>(tenant: i64, actor: i64, operation: &'a [u8], key: &'a [u8]) -> _ {
    api_idempotency::table
        .filter(api_idempotency::tenant_id.eq(tenant))
        .filter(api_idempotency::actor_id.eq(actor))
        .filter(api_idempotency::operation.eq(operation))
        .filter(api_idempotency::idempotency_key.eq(key))
        .select(record_columns())
}

/// The mark before a step that may store a refusal, and the undo back to it: the same
/// SQL on both stores.
const SAVEPOINT: &str = "SAVEPOINT step";
const ROLLBACK_TO_SAVEPOINT: &str = "ROLLBACK TO SAVEPOINT step";

async fn execute_text<C: SqlConnection>(conn: &mut C, sql: &str) -> Result<(), StoreError> {
    conn.batch_execute(sql)
        .await
        .map_err(C::Backend::store_error)
}

/// A record by its scope and key: one autocommit read outside any write transaction, so
/// it sees the latest commit (`docs/storage.md#duplicates-and-the-fresh-read`).
fn find_query<'a>(
    scope: &'a Scope,
    key: &'a IdempotencyKey,
) -> Result<Limit<by_scope_key<'a>>, StoreError> {
    Ok(by_scope_key(
        to_i64(scope.tenant.get())?,
        to_i64(scope.actor.get())?,
        scope.operation.as_str().as_bytes(),
        key.as_str().as_bytes(),
    )
    .limit(1))
}

for_both_transactions! {
    impl RecordTx {
        async fn insert_processing(
            &mut self,
            record: &NewRecord,
        ) -> Result<RecordId, InsertRecordError> {
            self.run("record insert", async |conn, ids| {
                insert_processing(conn, ids, record).await
            })
            .await
        }

        async fn insert_processing_batch(
            &mut self,
            records: &[NewRecord],
        ) -> Result<Vec<RecordId>, InsertRecordError> {
            self.run("record batch insert", async |conn, ids| {
                insert_processing_batch(conn, ids, records).await
            })
            .await
        }

        async fn complete_batch(
            &mut self,
            completions: &[(RecordId, Completion)],
        ) -> Result<u64, StoreError> {
            self.run("record batch completion", async |conn, _| {
                complete_batch(conn, completions).await
            })
            .await
        }

        async fn savepoint(&mut self) -> Result<(), StoreError> {
            self.run("savepoint", async |conn, _| execute_text(conn, SAVEPOINT).await)
                .await
        }

        async fn rollback_to_savepoint(&mut self) -> Result<(), StoreError> {
            self.run("rollback to savepoint", async |conn, _| {
                execute_text(conn, ROLLBACK_TO_SAVEPOINT).await
            })
            .await
        }

        async fn complete(
            &mut self,
            id: RecordId,
            completion: &Completion,
        ) -> Result<u64, StoreError> {
            self.run("record completion", async |conn, _| {
                complete(conn, id, completion).await
            })
            .await
        }

        async fn commit(self) -> Result<(), CommitError> {
            self.commit_transaction().await
        }

        async fn rollback(self) -> Result<(), StoreError> {
            self.rollback_transaction().await
        }
    }
}

for_both_stores! {
    impl RecordReader {
        async fn find(
            &self,
            scope: &Scope,
            key: &IdempotencyKey,
        ) -> Result<Option<ExistingRecord>, StoreError> {
            self.find_one(
                "record read",
                find_query(scope, key)?,
                RecordRow::into_record,
            )
            .await
        }
    }
}
