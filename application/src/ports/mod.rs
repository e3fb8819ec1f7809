//! What the application needs from outside; every port is re-exported here for adapters.

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
pub use hooks::{FlowHooks, HookVerdict, KeyPoint, NoHooks, PausePoint};
pub use purge::RecordPurger;
pub use readiness::Readiness;
pub use record_reader::RecordReader;
pub use unit_of_work::{NewRecord, RecordTx, UnitOfWork};

pub use crate::events::{
    Delivery, EventOrder, EventPublisher, InboxTx, NewEvent, NewShipment, OutboxClaim,
    OutboxRelayStore, OutboxWriter, PendingEvent, PendingSummary, PublishError, ShipmentRepository,
    ShipmentState, Stored,
};
pub use crate::leased::{
    Claim, Definite, DueOperation, Ending, NoAnswer, OperationCensus, OperationEnd,
    OperationReader, OperationStore, OperationView, ProviderAnswer,
};
pub use crate::orders::{OrderReader, OrderRepository};
pub use crate::payments::{CaptureAcceptance, PaymentProvider, PaymentRecords};
