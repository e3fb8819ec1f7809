//! SQL of the inbox and of the shipments consumer's table.

use application::ports::{Delivery, InboxTx, NewShipment, ShipmentRepository, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{self, Values};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use uuid::Uuid;

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

const REQUESTED: &str = "REQUESTED";

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
}

pub(crate) type InsertShipment<'a> = Values<dsl::insert_into<shipments::table>, ShipmentRow<'a>>;

pub(crate) async fn insert_shipment<'a, C>(
    conn: &mut C,
    shipment: &'a NewShipment,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    InsertShipment<'a>: QueryFragment<C::Backend>,
{
    diesel::insert_into(shipments::table)
        .values(ShipmentRow {
            order_id: to_i64(shipment.order.get())?,
            tenant_id: to_i64(shipment.tenant.get())?,
            sku: shipment.sku.as_bytes(),
            quantity: i16::from(shipment.quantity),
            state: REQUESTED,
            event_id: shipment.event.as_bytes(),
            created_at: shipment.created_at.naive_utc(),
        })
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(())
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
        async fn insert_shipment(&mut self, shipment: &NewShipment) -> Result<(), StoreError> {
            self.run("shipment insert", async |conn, _| insert_shipment(conn, shipment).await)
                .await
        }
    }
}
