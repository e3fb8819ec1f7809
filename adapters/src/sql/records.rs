//! SQL of the idempotency record: insert, complete, fresh read.

use application::ports::{InsertRecordError, NewRecord, RecordReader, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Limit, Values};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use domain::{Completion, ExistingRecord, IdempotencyKey, RecordId, Scope};

use super::both_stores::for_both_stores;
use super::classify::{Classify, record_insert_error};
use super::complete_record::CompleteRecord;
use super::connection::SqlConnection;
use super::rendered_once::RenderedOnce;
use super::rows::{COMPLETED, PROCESSING, RecordRow, fingerprint_version, record_columns, to_i64};
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

    /// `COMPLETED`, for a batch's record whose answer is written with it.
    pub(crate) fn completed(record: &'a NewRecord) -> Result<Self, StoreError> {
        Ok(Self {
            state: COMPLETED,
            ..Self::processing(record)?
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

/// A record's key columns, to match each row of a read of many to its key.
type KeyedRow = ((i64, i64, Vec<u8>, Vec<u8>), RecordRow);

/// Each key's record among the rows read, in the keys' order.
fn in_key_order(
    keys: &[(&Scope, &IdempotencyKey)],
    rows: Vec<KeyedRow>,
) -> Result<Vec<Option<ExistingRecord>>, StoreError> {
    let mut rows: Vec<_> = rows.into_iter().map(Some).collect();
    keys.iter()
        .map(|(scope, key)| {
            let found = rows.iter_mut().find(|row| {
                row.as_ref()
                    .is_some_and(|((tenant, actor, operation, stored_key), _)| {
                        u64::try_from(*tenant) == Ok(scope.tenant.get())
                            && u64::try_from(*actor) == Ok(scope.actor.get())
                            && operation.as_slice() == scope.operation.as_str().as_bytes()
                            && stored_key.as_slice() == key.as_str().as_bytes()
                    })
            });
            found
                .and_then(Option::take)
                .map(|(_, record)| record.into_record())
                .transpose()
        })
        .collect()
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

        async fn find_many(
            &self,
            keys: &[(&Scope, &IdempotencyKey)],
        ) -> Result<Vec<Option<ExistingRecord>>, StoreError> {
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            // One statement: each key is one range of the unique index, so the read costs
            // what as many single reads would, in one round trip.
            let mut query = api_idempotency::table
                .select((
                    (
                        api_idempotency::tenant_id,
                        api_idempotency::actor_id,
                        api_idempotency::operation,
                        api_idempotency::idempotency_key,
                    ),
                    record_columns(),
                ))
                .into_boxed();
            for (scope, key) in keys {
                query = query.or_filter(
                    api_idempotency::tenant_id
                        .eq(to_i64(scope.tenant.get())?)
                        .and(api_idempotency::actor_id.eq(to_i64(scope.actor.get())?))
                        .and(api_idempotency::operation.eq(scope.operation.as_str().as_bytes()))
                        .and(api_idempotency::idempotency_key.eq(key.as_str().as_bytes())),
                );
            }
            let rows = self
                .find_all("records read", query, Ok::<KeyedRow, StoreError>)
                .await?;
            in_key_order(keys, rows)
        }
    }
}
