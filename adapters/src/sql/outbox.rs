//! SQL of the outbox's relay side: its reads and marks (`docs/events.md#the-outbox`). The
//! events' writes are in `outbox_writer.rs`.

use std::collections::BTreeSet;

use application::events::publishable_in_order;
use application::ports::{PendingEvent, PendingSummary, StoreError};
use chrono::NaiveDateTime;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{BigInt, Binary, Nullable, Timestamp};
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use super::bad_value::bad_row;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::schema::outbox;

#[derive(Queryable)]
pub(crate) struct PendingRow {
    event_id: Vec<u8>,
    subject: Vec<u8>,
    payload: Vec<u8>,
    created_at: NaiveDateTime,
    attempts: i32,
    ordering_key: Option<Vec<u8>>,
    ordering_seq: Option<i64>,
    trace_context: Option<String>,
}

impl PendingRow {
    /// A row without a 16-byte id or a UTF-8 subject is corrupt: an error, never
    /// published wrong.
    pub(crate) fn into_event(self) -> Result<PendingEvent, StoreError> {
        let corrupt = |column| bad_row("outbox", column);
        Ok(PendingEvent {
            id: Uuid::from_slice(&self.event_id).map_err(|_| corrupt("event id"))?,
            subject: String::from_utf8(self.subject).map_err(|_| corrupt("subject"))?,
            payload: self.payload,
            created_at: self.created_at.and_utc(),
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            trace_context: self.trace_context,
        })
    }
}

/// Each store adds its own locking.
#[dsl::auto_type]
pub(crate) fn pending_events(limit: i64) -> _ {
    outbox::table
        .filter(outbox::published_at.is_null())
        .order(outbox::id.asc())
        .limit(limit)
        .select((
            outbox::event_id,
            outbox::subject,
            outbox::payload,
            outbox::created_at,
            outbox::attempts,
            outbox::ordering_key,
            outbox::ordering_seq,
            outbox::trace_context,
        ))
}

/// The pending events of `keys`, by key and sequence (read from the index alone).
#[dsl::auto_type]
fn pending_of(keys: Vec<Vec<u8>>) -> _ {
    let pending: dsl::Filter<outbox::table, dsl::IsNull<outbox::published_at>> =
        outbox::table.filter(outbox::published_at.is_null());
    pending
        .filter(outbox::ordering_key.eq_any(keys))
        .select((outbox::ordering_key, outbox::ordering_seq))
}

/// What a claim may publish of `rows`, by the relay's order rule
/// ([`application::events::publishable_in_order`]): the pending events of their keys are
/// read plainly, so an event another relay holds still reads as pending. Also how many of
/// `rows` were left for a later pass.
pub(crate) async fn in_order<C>(
    conn: &mut C,
    rows: Vec<PendingRow>,
) -> Result<(Vec<PendingRow>, usize), StoreError>
where
    C: SqlConnection,
    pending_of: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(Nullable<Binary>, Nullable<BigInt>)>,
    (Option<Vec<u8>>, Option<i64>): FromSqlRow<(Nullable<Binary>, Nullable<BigInt>), C::Backend>,
{
    let keys: BTreeSet<Vec<u8>> = rows
        .iter()
        .filter_map(|row| row.ordering_key.clone())
        .collect();
    if keys.is_empty() {
        return Ok((rows, 0));
    }
    let pending: Vec<(Option<Vec<u8>>, Option<i64>)> = pending_of(keys.into_iter().collect())
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(publishable_in_order(
        rows,
        |row| row.ordering_key.as_ref().zip(row.ordering_seq),
        pending.into_iter().filter_map(|(key, seq)| key.zip(seq)),
    ))
}

#[dsl::auto_type]
fn mark_published(ids: Vec<Vec<u8>>, now: NaiveDateTime) -> _ {
    let target: dsl::Filter<outbox::table, dsl::EqAny<outbox::event_id, Vec<Vec<u8>>>> =
        outbox::table.filter(outbox::event_id.eq_any(ids));
    dsl::update(target).set(outbox::published_at.eq(now))
}

#[dsl::auto_type]
fn count_failure(ids: Vec<Vec<u8>>) -> _ {
    let target: dsl::Filter<outbox::table, dsl::EqAny<outbox::event_id, Vec<Vec<u8>>>> =
        outbox::table.filter(outbox::event_id.eq_any(ids));
    dsl::update(target).set(outbox::attempts.eq(outbox::attempts + 1_i32))
}

/// Ids the outbox does not hold are ignored.
pub(crate) async fn settle<C>(
    conn: &mut C,
    published: &[Uuid],
    failed: &[Uuid],
    now: NaiveDateTime,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    mark_published: QueryFragment<C::Backend>,
    count_failure: QueryFragment<C::Backend>,
{
    let bytes = |ids: &[Uuid]| ids.iter().map(|id| id.as_bytes().to_vec()).collect();
    if !published.is_empty() {
        mark_published(bytes(published), now)
            .execute(conn)
            .await
            .map_err(C::Backend::store_error)?;
    }
    if !failed.is_empty() {
        count_failure(bytes(failed))
            .execute(conn)
            .await
            .map_err(C::Backend::store_error)?;
    }
    Ok(())
}

#[dsl::auto_type]
fn pending_count() -> _ {
    outbox::table
        .filter(outbox::published_at.is_null())
        .select(dsl::count_star())
}

/// Ordered by id, which grows with time.
#[dsl::auto_type]
fn oldest_pending() -> _ {
    outbox::table
        .filter(outbox::published_at.is_null())
        .order(outbox::id.asc())
        .select(outbox::created_at)
}

/// Two index reads.
pub(crate) async fn pending_summary<C>(conn: &mut C) -> Result<PendingSummary, StoreError>
where
    C: SqlConnection,
    pending_count: QueryFragment<C::Backend>,
    Limit<oldest_pending>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<BigInt> + QueryMetadata<Timestamp>,
    i64: FromSqlRow<BigInt, C::Backend>,
    NaiveDateTime: FromSqlRow<Timestamp, C::Backend>,
{
    let count: i64 = pending_count()
        .get_result(conn)
        .await
        .map_err(C::Backend::store_error)?;
    let oldest: Option<NaiveDateTime> = oldest_pending()
        .first(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    Ok(PendingSummary {
        count: u64::try_from(count).unwrap_or(0),
        oldest: oldest.map(|at| at.and_utc()),
    })
}
