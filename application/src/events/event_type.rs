//! An event type, declared beside the operation that writes it (`docs/events.md#the-events`):
//! its name, the subject it is published under, and what orders its events. The stream's
//! subjects are gathered from these declarations (the list in `adapters/src/api.rs`).

use domain::{OrderId, TenantId};

use super::outbox::EventOrder;

/// What the events of a type are about, which decides the order they are relayed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedBy {
    /// An order's events, of every type about it, reach the stream in commit order.
    Order,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventType {
    /// `orders.created.v1`: the envelope's `type`, fixed for ever.
    pub name: &'static str,
    pub ordered_by: OrderedBy,
}

impl EventType {
    /// A type whose events are about one order and keep its order.
    #[must_use]
    pub const fn about_order(name: &'static str) -> Self {
        Self {
            name,
            ordered_by: OrderedBy::Order,
        }
    }

    /// `<name>.<tenant>`: consumers may filter by tenant.
    #[must_use]
    pub fn subject(&self, tenant: TenantId) -> String {
        format!("{}.{}", self.name, tenant.get())
    }

    /// Every subject of the type, as the stream lists it.
    #[must_use]
    pub fn subjects(&self) -> String {
        format!("{}.>", self.name)
    }

    /// The event's place among those of what it is about: `orders/42`, at `sequence`.
    #[must_use]
    pub fn order_of(&self, order: OrderId, sequence: u64) -> EventOrder {
        match self.ordered_by {
            OrderedBy::Order => EventOrder {
                key: format!("orders/{order}"),
                sequence,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_event_is_published_per_tenant_and_kept_in_its_orders_order() {
        let created = EventType::about_order("orders.created.v1");
        assert_eq!(
            created.subject(TenantId::parse(7).unwrap()),
            "orders.created.v1.7"
        );
        assert_eq!(created.subjects(), "orders.created.v1.>");
        assert_eq!(
            created.order_of(OrderId::new(42), 3),
            EventOrder {
                key: "orders/42".to_owned(),
                sequence: 3
            }
        );
    }
}
