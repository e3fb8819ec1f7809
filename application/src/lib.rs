//! The application layer: ports and the idempotent coordinator.
//!
//! Nothing here knows SQL or HTTP. Error types: each port has its own `thiserror` enum
//! whose variants adapters MUST map to (see [`ports`]); the coordinator turns them into an
//! [`Outcome`], which is the only thing the edge needs.

mod caller;
mod coordinator;
mod create_order;
mod inbox;
mod operation;
mod order;
mod order_created;
mod outcome;
pub mod payments;
pub mod ports;
mod purge;
mod relay;
mod request_shipments;

pub use caller::Caller;
pub use coordinator::{Coordinator, CoordinatorSettings};
pub use create_order::{CreateOrder, ORDERS_CREATE};
pub use inbox::{HandleError, Handled, InboxConsumer, Poison, handle_delivery};
pub use operation::{IdempotentOperation, Rejection, StepContext, StepError};
pub use order::Order;
pub use order_created::{ORDERS_CREATED, order_created};
pub use outcome::{FailureCause, Outcome, UnknownCause};
pub use purge::{PurgeSettings, purge_expired, purge_published_events};
pub use relay::{Relay, RelayPacing, RelayPass};
pub use request_shipments::{RequestShipments, SHIPMENTS_CONSUMER, ShipmentRequest};
