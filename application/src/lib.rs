//! Ports, the idempotent coordinator, and the features built on them. Runtime-free: nothing
//! here knows SQL, HTTP or an async runtime.

pub mod admin;
mod caller;
mod error_chain;
pub mod events;
mod idempotency;
pub mod leased;
pub mod names;
pub mod orders;
pub mod payments;
pub mod ports;
mod reads;
mod timestamps;

pub use caller::Caller;
pub use error_chain::ErrorChain;
pub use events::{
    HandleError, Handled, InboxConsumer, Poison, Relay, RelayPacing, RelayPass, RequestShipments,
    SHIPMENTS_CONSUMER, ShipmentRequest, handle_delivery, purge_published_events,
};
pub use idempotency::{
    Answer, BatchMember, BatchObserver, BatchPlan, BatchSettings, Batching, BoxError, Coordinator,
    CoordinatorSettings, Execute, FailureCause, IdempotentOperation, InFlight, JSON, Location,
    NOT_FOUND, NoBatchObserver, NoRefusal, NoRefusalForms, Outcome, Planned, PlannedMember,
    PurgeSettings, Refusal, RefusalForms, ReplayCache, ReplayCacheSettings, RerunCause,
    StepContext, StepError, Steps, UnknownCause, answer, purge_expired,
};
pub use orders::{CreateOrder, CreateRefusal, ORDERS_CREATED, Order, ReadOrder, order_created};
pub use reads::{ReadFrom, Reads, TenantRead};
pub use timestamps::rfc3339_micros;
