//! SQL of the outbox: the event written in the business step's transaction.

use application::ports::{NewEvent, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Values};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;

use super::classify::Classify;
use super::connection::SqlConnection;
use super::rows::to_i64;
use super::schema::outbox;

/// The insert of a pending event (`published_at` NULL, `attempts` 0 by the columns'
/// defaults).
#[derive(Insertable)]
#[diesel(table_name = outbox)]
// Plain values only, so MySQL caches the statement (see `records::NewRecordRow`).
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewEventRow<'a> {
    event_id: &'a [u8],
    event_type: &'a [u8],
    tenant_id: i64,
    subject: &'a [u8],
    payload: &'a [u8],
    created_at: NaiveDateTime,
}

/// The statement [`insert_event`] runs.
pub(crate) type InsertEvent<'a> = Values<dsl::insert_into<outbox::table>, NewEventRow<'a>>;

/// Adds one pending event inside the caller's open transaction.
pub(crate) async fn insert_event<'a, C>(conn: &mut C, event: &'a NewEvent) -> Result<(), StoreError>
where
    C: SqlConnection,
    InsertEvent<'a>: QueryFragment<C::Backend>,
{
    let row = NewEventRow {
        event_id: event.id.as_bytes(),
        event_type: event.event_type.as_bytes(),
        tenant_id: to_i64(event.tenant.get())?,
        subject: event.subject.as_bytes(),
        payload: &event.payload,
        created_at: event.created_at.naive_utc(),
    };
    diesel::insert_into(outbox::table)
        .values(row)
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(())
}
