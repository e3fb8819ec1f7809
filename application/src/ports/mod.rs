//! The ports: what the application needs from the outside world, as traits. The generic
//! core's are defined here; a feature's own are defined with it and listed here too, so
//! that an adapter finds every socket in one place.
//!
//! Each method documents, under `# Errors`, the variants an adapter MUST return: the
//! coordinator's correctness rests on that classification (only a scope-key violation is
//! ever taken for "someone else already ran this").

mod authorizer;
mod clock;
mod errors;
mod hooks;
mod purge;
mod readiness;
mod record_reader;
mod unit_of_work;

pub use authorizer::{PermissionAuthorizer, ReplayAuthorizer};
pub use clock::Clock;
pub use errors::{CommitError, InsertRecordError, StoreError};
pub use hooks::{FlowHooks, HookVerdict, NoHooks, PausePoint};
pub use purge::RecordPurger;
pub use readiness::Readiness;
pub use record_reader::RecordReader;
pub use unit_of_work::{NewRecord, RecordTx, UnitOfWork};

pub use crate::events::{
    Delivery, EventPublisher, InboxTx, NewEvent, NewShipment, OutboxClaim, OutboxRelayStore,
    OutboxWriter, PendingEvent, PendingSummary, PublishError, ShipmentRepository,
};
pub use crate::orders::{OrderReader, OrderRepository};
pub use crate::payments::{
    Charge, DueOperation, Ending, NewCapture, NoAnswer, OperationReader, OperationStore,
    OperationView, OperationWriter, PaymentProvider, PaymentView, ProviderAnswer,
};
