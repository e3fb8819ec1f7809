//! The ports: what the coordinator needs from the outside world, as traits.
//!
//! Each method documents, under `# Errors`, the variants an adapter MUST return: the
//! coordinator's correctness rests on that classification (only a scope-key violation is
//! ever taken for "someone else already ran this").

mod accepted_operations;
mod authorizer;
mod clock;
mod errors;
mod hooks;
mod inbox;
mod operations;
mod orders;
mod outbox;
mod purge;
mod readiness;
mod record_reader;
mod relay;
mod unit_of_work;

pub use accepted_operations::{
    AcceptCaptureError, NewCapture, OperationReader, OperationView, OperationWriter, PaymentView,
};
pub use authorizer::{PermissionAuthorizer, ReplayAuthorizer};
pub use clock::{Clock, SystemClock};
pub use errors::{CommitError, InsertOrderError, InsertRecordError, StoreError};
pub use hooks::{FlowHooks, HookVerdict, NoHooks, PausePoint};
pub use inbox::{Delivery, InboxTx, NewShipment, ShipmentRepository};
pub use operations::{
    Charge, DueOperation, Ending, OperationStore, PaymentProvider, ProviderAnswer,
};
pub use orders::{OrderReader, OrderRepository};
pub use outbox::{NewEvent, OutboxWriter};
pub use purge::RecordPurger;
pub use readiness::Readiness;
pub use record_reader::RecordReader;
pub use relay::{
    EventPublisher, OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, PublishError,
};
pub use unit_of_work::{NewRecord, RecordTx, UnitOfWork};
