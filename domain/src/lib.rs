//! The pure core of idempotent execution: keys, scopes, fingerprints, the record state
//! machine and [`decide`]. No I/O, no clock, no async: callers pass time in.

mod fingerprint;
mod key;
mod lease;
mod operator;
mod order;
mod payment;
mod reason;
mod record;
mod retention;
mod scope;
mod token_chars;

pub use fingerprint::{Fingerprint, FingerprintVersion, Fingerprinted, canonical_bytes};
pub use key::{IdempotencyKey, KeyError};
pub use lease::{Generation, Lease, LeaseLost, LeaseView, Leased, OwnerId, OwnerIdError};
pub use operator::{AttemptError, OperatorAction, ProviderId, Resolution};
pub use order::{
    ClientOrderRef, NewOrder, OrderId, OrderStatus, Quantity, QuantityError, Sku, UnknownStatus,
};
pub use payment::{
    Amount, Currency, MAX_AMOUNT, OperationState, PaymentCapture, PaymentInputError, UnknownState,
};
pub use reason::{MAX_REASON_CHARS, Reason, ReasonError};
pub use record::{
    Completion, Decision, ExistingRecord, RecordId, RecordState, StoredResponse,
    StoredResponseError, TransitionError, decide,
};
pub use retention::{RetentionError, RetentionPolicy};
pub use scope::{ActorId, IdError, Operation, OperationError, Scope, TenantId};
pub use token_chars::TokenTextError;
