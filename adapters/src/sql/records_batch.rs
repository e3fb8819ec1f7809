//! A batch's records: their inserts as one statement, their completions as another
//! (`docs/storage.md#batched-creates`).

use application::ports::{InsertRecordError, NewRecord, StoreError};
use diesel::Insertable;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Binary};
use diesel_async::RunQueryDsl;
use domain::{Completion, RecordId};

use super::bad_value::bad_row;
use super::classify::{Classify, record_insert_error};
use super::complete_record::CompleteRecord;
use super::complete_records::CompleteRecords;
use super::connection::SqlConnection;
use super::multi_row::{MultiValues, Returning, ids_in_order};
use super::records::{InsertRecord, NewRecordRow, complete, insert_processing};
use super::rendered_once::RenderedOnce;
use super::schema::api_idempotency;

/// What names a returned record: its id, then its scope's tenant and actor, and its key
/// (a batch is of one operation).
type RecordKeys = (BigInt, BigInt, BigInt, Binary);
type KeyRow = (i64, i64, i64, Vec<u8>);
const RECORD_KEYS: &[&str] = &["id", "tenant_id", "actor_id", "idempotency_key"];

pub(crate) type InsertRecords<'a> = Returning<
    MultiValues<<NewRecordRow<'a> as Insertable<api_idempotency::table>>::Values>,
    RecordKeys,
>;

/// Any member's key already taken is [`InsertRecordError::KeyAlreadyRegistered`] for the
/// batch. Without `RETURNING`, one insert per record.
pub(crate) async fn insert_processing_batch<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    records: &'a [NewRecord],
) -> Result<Vec<RecordId>, InsertRecordError>
where
    C: SqlConnection,
    InsertRecord<'a>: QueryFragment<C::Backend>,
    InsertRecords<'a>: QueryFragment<C::Backend> + QueryId + Send,
    C::Backend: QueryMetadata<RecordKeys>,
    KeyRow: FromSqlRow<RecordKeys, C::Backend>,
{
    if !C::returns_rows(ids) || records.len() < 2 {
        let mut inserted = Vec::with_capacity(records.len());
        for record in records {
            inserted.push(insert_processing(conn, ids, record).await?);
        }
        return Ok(inserted);
    }
    let rows = records
        .iter()
        .map(NewRecordRow::processing)
        .collect::<Result<Vec<_>, _>>()?;
    let insert: InsertRecords<'a> =
        Returning::new(MultiValues::new("api_idempotency", rows), RECORD_KEYS);
    let returned: Vec<KeyRow> = insert
        .load(conn)
        .await
        .map_err(record_insert_error::<C::Backend>)?;
    let returned: Vec<_> = returned
        .into_iter()
        .map(|(id, tenant, actor, key)| (id, (tenant, actor, key)))
        .collect();
    let ids = ids_in_order(records, &returned, |record, (tenant, actor, key)| {
        u64::try_from(*tenant) == Ok(record.scope.tenant.get())
            && u64::try_from(*actor) == Ok(record.scope.actor.get())
            && key.as_slice() == record.key.as_str().as_bytes()
    })
    .ok_or_else(|| bad_row("api_idempotency", "id"))?;
    Ok(ids.into_iter().map(RecordId).collect())
}

/// The count of records completed; one statement for them all.
pub(crate) async fn complete_batch<'a, C>(
    conn: &mut C,
    completions: &'a [(RecordId, Completion)],
) -> Result<u64, StoreError>
where
    C: SqlConnection,
    RenderedOnce<CompleteRecord<'a>>: QueryFragment<C::Backend>,
    CompleteRecords<'a>: QueryFragment<C::Backend>,
{
    if let [(id, completion)] = completions {
        return complete(conn, *id, completion).await;
    }
    let update = CompleteRecords(
        completions
            .iter()
            .map(|(id, completion)| CompleteRecord::of(*id, completion))
            .collect::<Result<_, _>>()?,
    );
    let changed = update
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(changed as u64)
}
