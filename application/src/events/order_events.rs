//! An order's events, one envelope for all of them (`docs/events.md#the-events`): each
//! carries the order's revision, which orders its events, whatever operation wrote it (the
//! order's own, or a payment of it).

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use serde::Serialize;
use uuid::Uuid;

use super::{EventType, NewEvent};
use crate::orders::{Order, OrderDocument};
use crate::ports::StoreError;
use crate::timestamps::rfc3339_micros;

/// The revision a created order starts at, and its first event's sequence.
pub const FIRST_REVISION: u64 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<B> {
    event_id: String,
    #[serde(rename = "type")]
    event_type: &'static str,
    tenant_id: u64,
    occurred_at: String,
    sequence: u64,
    #[serde(flatten)]
    body: B,
}

#[derive(Serialize)]
struct OrderBody<'a> {
    order: OrderDocument<'a>,
}

/// An event about `order` at `revision`, with `body`'s members after the envelope's: `id`
/// is made once, with the change; the subject and the order its events keep are the type's.
#[must_use]
pub fn event_about_order(
    event_type: EventType,
    id: Uuid,
    (tenant, order): (TenantId, OrderId),
    revision: u64,
    occurred_at: DateTime<Utc>,
    body: impl Serialize,
) -> NewEvent {
    let document = Envelope {
        event_id: id.hyphenated().to_string(),
        event_type: event_type.name,
        tenant_id: tenant.get(),
        occurred_at: rfc3339_micros(occurred_at),
        sequence: revision,
        body,
    };
    NewEvent {
        id,
        event_type: event_type.name,
        tenant,
        subject: event_type.subject(tenant),
        // Serializing strings and integers into memory cannot fail.
        payload: serde_json::to_vec(&document).unwrap_or_default(),
        created_at: occurred_at,
        order: Some(event_type.order_of(order, revision)),
    }
}

/// An event of the order's own (created, cancelled): the order as it then was.
#[must_use]
pub fn order_event(
    event_type: EventType,
    id: Uuid,
    order: &Order,
    revision: u64,
    occurred_at: DateTime<Utc>,
) -> NewEvent {
    event_about_order(
        event_type,
        id,
        (order.tenant, order.id),
        revision,
        occurred_at,
        OrderBody {
            order: order.body(),
        },
    )
}

/// The order's revision, raised for an event about it that another operation writes (a
/// payment's): raised under the order's row lock, so its events keep their commit order.
pub trait OrderRevisions {
    /// # Errors
    /// `Other` when the tenant has no such order: an operation of it outlived it.
    fn next_order_revision(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::EventOrder;
    use crate::orders::{order_created, sample_order};

    #[test]
    fn the_event_embeds_the_order_as_get_shows_it() {
        let order = sample_order(7);
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        let event = order_created(id, &order);
        assert_eq!(event.subject, "orders.created.v1.7");
        assert_eq!(event.created_at, order.created_at);
        assert_eq!(
            event.order,
            Some(EventOrder {
                key: "orders/42".to_owned(),
                sequence: 1
            })
        );
        let expected = format!(
            r#"{{"eventId":"01234567-89ab-cdef-0123-456789abcdef","type":"orders.created.v1","tenantId":7,"occurredAt":"2023-11-14T22:13:20.000005Z","sequence":1,"order":{}}}"#,
            String::from_utf8(order.to_json()).unwrap()
        );
        assert_eq!(String::from_utf8(event.payload).unwrap(), expected);
    }
}
