//! SQL of the inbox and of the shipments consumer's table.

use application::ports::{
    Delivery, InboxTx, NewShipment, ShipmentRepository, ShipmentState, StoreError,
};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use domain::OrderId;
use uuid::Uuid;

use super::bad_value::bad;

use super::both_stores::for_both_transactions;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::rows::to_i64;
use super::schema::{inbox, shipments};

#[derive(Insertable)]
#[diesel(table_name = inbox)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct DeliveryRow<'a> {
    consumer: &'a [u8],
    event_id: &'a [u8],
    received_at: NaiveDateTime,
}

/// `INSERT IGNORE` (MySQL) or `INSERT OR IGNORE` (SQLite): a taken key inserts no row,
/// which is the answer, with no error text to read. A key another open transaction is
/// inserting waits for it, then inserts nothing if it committed.
pub(crate) type RecordDelivery<'a> =
    Values<dsl::insert_or_ignore_into<inbox::table>, DeliveryRow<'a>>;

pub(crate) async fn record_delivery<'a, C>(
    conn: &mut C,
    consumer: &'a str,
    event: &'a Uuid,
    at: NaiveDateTime,
) -> Result<Delivery, StoreError>
where
    C: SqlConnection,
    RecordDelivery<'a>: QueryFragment<C::Backend>,
{
    let inserted = diesel::insert_or_ignore_into(inbox::table)
        .values(DeliveryRow {
            consumer: consumer.as_bytes(),
            event_id: event.as_bytes(),
            received_at: at,
        })
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(if inserted == 1 {
        Delivery::First
    } else {
        Delivery::Duplicate
    })
}

#[derive(Insertable)]
#[diesel(table_name = shipments)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ShipmentRow<'a> {
    order_id: i64,
    tenant_id: i64,
    sku: &'a [u8],
    quantity: i16,
    state: &'static str,
    event_id: &'a [u8],
    created_at: NaiveDateTime,
    order_sequence: i64,
}

/// Like the inbox's: an order that has a shipment inserts no row, which is the answer.
pub(crate) type InsertShipment<'a> =
    Values<dsl::insert_or_ignore_into<shipments::table>, ShipmentRow<'a>>;

pub(crate) async fn insert_shipment<'a, C>(
    conn: &mut C,
    shipment: &'a NewShipment,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    InsertShipment<'a>: QueryFragment<C::Backend>,
{
    let inserted = diesel::insert_or_ignore_into(shipments::table)
        .values(ShipmentRow {
            order_id: to_i64(shipment.order.get())?,
            tenant_id: to_i64(shipment.tenant.get())?,
            sku: shipment.sku.as_bytes(),
            quantity: i16::from(shipment.quantity),
            state: shipment.state.as_stored(),
            event_id: shipment.event.as_bytes(),
            created_at: shipment.created_at.naive_utc(),
            order_sequence: to_i64(shipment.sequence)?,
        })
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(inserted == 1)
}

const REQUESTED: &str = ShipmentState::Requested.as_stored();
const CANCELLED: &str = ShipmentState::Cancelled.as_stored();

/// The order's requested shipment, written by an event older than `sequence`.
#[dsl::auto_type]
fn older_requested(order: i64, sequence: i64, requested: &'static str) -> _ {
    shipments::table.filter(
        shipments::order_id
            .eq(order)
            .and(shipments::state.eq(requested))
            .and(shipments::order_sequence.lt(sequence)),
    )
}

#[dsl::auto_type]
fn cancel_requested(
    order: i64,
    sequence: i64,
    requested: &'static str,
    cancelled: &'static str,
) -> _ {
    let target: older_requested = older_requested(order, sequence, requested);
    dsl::update(target).set((
        shipments::state.eq(cancelled),
        shipments::order_sequence.eq(sequence),
    ))
}

pub(crate) async fn cancel_requested_shipment<C>(
    conn: &mut C,
    order: OrderId,
    sequence: u64,
) -> Result<bool, StoreError>
where
    C: SqlConnection,
    cancel_requested: QueryFragment<C::Backend>,
{
    let changed = cancel_requested(
        to_i64(order.get())?,
        to_i64(sequence)?,
        REQUESTED,
        CANCELLED,
    )
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    Ok(changed == 1)
}

#[dsl::auto_type]
fn state_of(order: i64) -> _ {
    shipments::table
        .filter(shipments::order_id.eq(order))
        .select(shipments::state)
}

pub(crate) async fn shipment_state<C>(
    conn: &mut C,
    order: OrderId,
) -> Result<Option<ShipmentState>, StoreError>
where
    C: SqlConnection,
    Limit<state_of>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<Text>,
    String: FromSqlRow<Text, C::Backend>,
{
    let state: Option<String> = state_of(to_i64(order.get())?)
        .first(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    state
        .map(|state| ShipmentState::from_stored(&state).map_err(bad("shipments", "state")))
        .transpose()
}

for_both_transactions! {
    impl InboxTx {
        async fn record_delivery(
            &mut self,
            consumer: &'static str,
            event: Uuid,
            at: DateTime<Utc>,
        ) -> Result<Delivery, StoreError> {
            self.run("inbox insert", async |conn, _| {
                record_delivery(conn, consumer, &event, at.naive_utc()).await
            })
            .await
        }
    }
}

for_both_transactions! {
    impl ShipmentRepository {
        async fn insert_shipment(&mut self, shipment: &NewShipment) -> Result<bool, StoreError> {
            self.run("shipment insert", async |conn, _| insert_shipment(conn, shipment).await)
                .await
        }

        async fn cancel_requested_shipment(
            &mut self,
            order: OrderId,
            sequence: u64,
        ) -> Result<bool, StoreError> {
            self.run("shipment cancel", async |conn, _| {
                cancel_requested_shipment(conn, order, sequence).await
            })
            .await
        }

        async fn shipment_state(&mut self, order: OrderId) -> Result<Option<ShipmentState>, StoreError> {
            self.run("shipment read", async |conn, _| shipment_state(conn, order).await)
                .await
        }
    }
}
