//! The outbox invariant (`docs/events.md#the-outbox`), checked when every test's database
//! is removed, on every store: orders = events, per tenant and in all. A replay, a
//! rejection or a rolled-back attempt writes no event; a committed order always has one.

use diesel::QueryableByName;
use diesel::sql_types::BigInt;

/// Orders per tenant, in both dialects.
pub(crate) const ORDERS_PER_TENANT: &str =
    "SELECT tenant_id, COUNT(*) AS n FROM orders GROUP BY tenant_id ORDER BY tenant_id";

/// `orders.created.v1` events per tenant, in both dialects (the type as a hex literal:
/// the column is binary on both stores, and SQLite never equates a blob with text).
pub(crate) const ORDER_EVENTS_PER_TENANT: &str = "SELECT tenant_id, COUNT(*) AS n FROM outbox \
     WHERE event_type = X'6f72646572732e637265617465642e7631' \
     GROUP BY tenant_id ORDER BY tenant_id";

/// One row of either count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, QueryableByName)]
pub(crate) struct TenantCount {
    #[diesel(sql_type = BigInt)]
    tenant_id: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// # Panics
/// When a tenant's orders and events differ in number.
pub(crate) fn assert_orders_match_events(
    orders: &[TenantCount],
    events: &[TenantCount],
    context: &str,
) {
    assert_eq!(
        orders, events,
        "orders per tenant vs orders.created.v1 events per tenant ({context})"
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hex_literal_is_the_event_type() {
        let hex = crate::hex(application::ORDERS_CREATED.name);
        assert!(super::ORDER_EVENTS_PER_TENANT.contains(&format!("X'{hex}'")));
    }
}
