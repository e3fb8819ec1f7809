//! Events through an outbox, relayed at least once, applied once per consumer (`docs/events.md`).

mod event_type;
mod in_order;
mod inbox;
mod inbox_store;
mod order_events;
mod outbox;
mod purge;
mod relay;
mod relay_store;
mod request_shipments;

pub use event_type::{EventType, OrderedBy};
pub use in_order::publishable_in_order;
pub use inbox::{Applied, HandleError, Handled, InboxConsumer, Poison, handle_delivery};
pub use inbox_store::{
    Delivery, InboxTx, NewShipment, ShipmentRepository, ShipmentState, UnknownShipmentState,
};
pub use order_events::{FIRST_REVISION, OrderRevisions, event_about_order, order_event};
pub use outbox::{EventOrder, NewEvent, OutboxWriter};
pub use purge::purge_published_events;
pub use relay::{Relay, RelayPacing, RelayPass};
pub use relay_store::{
    EventPublisher, OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, PublishError,
    Stored,
};
pub use request_shipments::{OrderChange, RequestShipments, SHIPMENTS_CONSUMER, ShipmentRequest};
