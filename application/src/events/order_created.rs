//! `orders.created.v1`, written with the order (`docs/events.md#the-event`).

use serde::Serialize;
use uuid::Uuid;

use super::NewEvent;
use crate::orders::{Order, OrderBody};
use crate::timestamps::rfc3339_micros;

pub const ORDERS_CREATED: &str = "orders.created.v1";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    event_id: String,
    #[serde(rename = "type")]
    event_type: &'static str,
    tenant_id: u64,
    occurred_at: String,
    order: OrderBody<'a>,
}

/// `id` is made once, with the order; the tenant in the subject lets consumers filter.
#[must_use]
pub fn order_created(id: Uuid, order: &Order) -> NewEvent {
    let document = Document {
        event_id: id.hyphenated().to_string(),
        event_type: ORDERS_CREATED,
        tenant_id: order.tenant.get(),
        occurred_at: rfc3339_micros(order.created_at),
        order: order.body(),
    };
    NewEvent {
        id,
        event_type: ORDERS_CREATED,
        tenant: order.tenant,
        subject: format!("{ORDERS_CREATED}.{}", order.tenant.get()),
        // Serializing strings and integers into memory cannot fail.
        payload: serde_json::to_vec(&document).unwrap_or_default(),
        created_at: order.created_at,
    }
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use domain::{ClientOrderRef, NewOrder, OrderId, Quantity, Sku, TenantId};

    use super::*;

    #[test]
    fn the_event_embeds_the_order_as_get_shows_it() {
        let order = Order {
            id: OrderId::new(42),
            tenant: TenantId::parse(7).unwrap(),
            details: NewOrder {
                client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
                sku: Sku::parse("SKU-1").unwrap(),
                quantity: Quantity::parse(2).unwrap(),
            },
            created_at: DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
        };
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        let event = order_created(id, &order);
        assert_eq!(event.subject, "orders.created.v1.7");
        assert_eq!(event.created_at, order.created_at);
        let expected = format!(
            r#"{{"eventId":"01234567-89ab-cdef-0123-456789abcdef","type":"orders.created.v1","tenantId":7,"occurredAt":"2023-11-14T22:13:20.000005Z","order":{}}}"#,
            String::from_utf8(order.to_json()).unwrap()
        );
        assert_eq!(String::from_utf8(event.payload).unwrap(), expected);
    }
}
