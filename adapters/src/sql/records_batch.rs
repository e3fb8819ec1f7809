//! A batch's records, inserted already complete as one statement
//! (`docs/storage.md#batched-operations`).

use application::ports::{InsertRecordError, NewRecord, StoreError};
use chrono::NaiveDateTime;
use diesel::Insertable;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Binary};
use diesel_async::RunQueryDsl;
use domain::{Completion, RecordId};

use super::bad_value::OutOfRange;
use super::bad_value::bad_row;
use super::classify::record_insert_error;
use super::complete_record::CompleteRecord;
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

/// A record inserted already complete: its answer was known before the batch wrote its
/// first row (`docs/storage.md#batched-operations`).
#[derive(Insertable)]
#[diesel(table_name = api_idempotency)]
// Plain values, so that the statement is cached (see `NewRecordRow`); no location is NULL.
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CompletedRecordRow<'a> {
    #[diesel(embed)]
    record: NewRecordRow<'a>,
    response_status: i16,
    response_content_type: &'a str,
    response_location: Option<&'a str>,
    response_body: &'a [u8],
    completed_at: NaiveDateTime,
    expires_at: NaiveDateTime,
}

impl<'a> CompletedRecordRow<'a> {
    fn of(record: &'a NewRecord, completion: &'a Completion) -> Result<Self, StoreError> {
        let response = &completion.response;
        Ok(Self {
            record: NewRecordRow::completed(record)?,
            response_status: i16::try_from(response.status())
                .map_err(|_| StoreError::from(OutOfRange("status")))?,
            response_content_type: response.content_type(),
            response_location: response.location(),
            response_body: response.body(),
            completed_at: completion.completed_at.naive_utc(),
            expires_at: completion.expires_at.naive_utc(),
        })
    }
}

pub(crate) type InsertRecords<'a> = Returning<
    MultiValues<<CompletedRecordRow<'a> as Insertable<api_idempotency::table>>::Values>,
    RecordKeys,
>;

/// Any member's key already taken is [`InsertRecordError::KeyAlreadyRegistered`] for the
/// batch. Without `RETURNING`, each record is inserted and completed alone.
pub(crate) async fn insert_completed_batch<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    records: &'a [(NewRecord, Completion)],
) -> Result<Vec<RecordId>, InsertRecordError>
where
    C: SqlConnection,
    InsertRecord<'a>: QueryFragment<C::Backend>,
    RenderedOnce<CompleteRecord<'a>>: QueryFragment<C::Backend>,
    InsertRecords<'a>: QueryFragment<C::Backend> + QueryId + Send,
    C::Backend: QueryMetadata<RecordKeys>,
    KeyRow: FromSqlRow<RecordKeys, C::Backend>,
{
    if !C::returns_rows(ids) || records.len() < 2 {
        let mut inserted = Vec::with_capacity(records.len());
        for (record, completion) in records {
            let id = insert_processing(conn, ids, record).await?;
            if complete(conn, id, completion).await? != 1 {
                return Err(bad_row("api_idempotency", "state").into());
            }
            inserted.push(id);
        }
        return Ok(inserted);
    }
    let rows = records
        .iter()
        .map(|(record, completion)| CompletedRecordRow::of(record, completion))
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
    let ids = ids_in_order(records, &returned, |(record, _), (tenant, actor, key)| {
        u64::try_from(*tenant) == Ok(record.scope.tenant.get())
            && u64::try_from(*actor) == Ok(record.scope.actor.get())
            && key.as_slice() == record.key.as_str().as_bytes()
    })
    .ok_or_else(|| bad_row("api_idempotency", "id"))?;
    Ok(ids.into_iter().map(RecordId).collect())
}
