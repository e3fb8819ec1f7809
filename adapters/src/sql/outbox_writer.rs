//! SQL of the outbox's writing side: the events written in the business step's
//! transaction, one or a batch's many (`docs/events.md#the-outbox`).

use application::ports::{NewEvent, OutboxWriter, StoreError};
use chrono::NaiveDateTime;
use diesel::dsl::{self, Values};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;

use super::both_stores::for_both_transactions;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::multi_row::MultiValues;
use super::rendered_once::RenderedOnce;
use super::rows::to_i64;
use super::schema::outbox;
use crate::telemetry::current_traceparent;

/// `published_at` NULL and `attempts` 0 come from the columns' defaults.
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
    ordering_key: Option<&'a [u8]>,
    ordering_seq: Option<i64>,
    /// The writing statement's span, so the relay publishes in the request's trace.
    trace_context: Option<String>,
}

pub(crate) type InsertEvent<'a> = Values<dsl::insert_into<outbox::table>, NewEventRow<'a>>;

impl<'a> NewEventRow<'a> {
    fn of(event: &'a NewEvent) -> Result<Self, StoreError> {
        Ok(Self {
            event_id: event.id.as_bytes(),
            event_type: event.event_type.as_bytes(),
            tenant_id: to_i64(event.tenant.get())?,
            subject: event.subject.as_bytes(),
            payload: &event.payload,
            created_at: event.created_at.naive_utc(),
            ordering_key: event.order.as_ref().map(|order| order.key.as_bytes()),
            ordering_seq: event
                .order
                .as_ref()
                .map(|order| to_i64(order.sequence))
                .transpose()?,
            trace_context: current_traceparent(),
        })
    }
}

pub(crate) async fn insert_event<'a, C>(conn: &mut C, event: &'a NewEvent) -> Result<(), StoreError>
where
    C: SqlConnection,
    RenderedOnce<InsertEvent<'a>>: QueryFragment<C::Backend>,
{
    RenderedOnce(diesel::insert_into(outbox::table).values(NewEventRow::of(event)?))
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(())
}

pub(crate) type InsertEvents<'a> =
    MultiValues<<NewEventRow<'a> as Insertable<outbox::table>>::Values>;

/// A batch's events in one statement.
pub(crate) async fn insert_events<'a, C>(
    conn: &mut C,
    events: &'a [NewEvent],
) -> Result<(), StoreError>
where
    C: SqlConnection,
    RenderedOnce<InsertEvent<'a>>: QueryFragment<C::Backend>,
    InsertEvents<'a>: QueryFragment<C::Backend>,
{
    if let [event] = events {
        return insert_event(conn, event).await;
    }
    let rows = events
        .iter()
        .map(NewEventRow::of)
        .collect::<Result<Vec<_>, _>>()?;
    MultiValues::new("outbox", rows)
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(())
}

for_both_transactions! {
    impl OutboxWriter {
        async fn add_event(&mut self, event: &NewEvent) -> Result<(), StoreError> {
            self.run("outbox insert", async |conn, _| insert_event(conn, event).await)
                .await
        }

        async fn add_events(&mut self, events: &[NewEvent]) -> Result<(), StoreError> {
            self.run("outbox batch insert", async |conn, _| insert_events(conn, events).await)
                .await
        }
    }
}
