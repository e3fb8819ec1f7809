//! The generic core every idempotent operation runs through.

mod coordinator;
mod in_flight;
mod operation;
mod outcome;
mod purge;
mod replay_cache;

pub use coordinator::{Coordinator, CoordinatorSettings};
pub use in_flight::InFlight;
pub use operation::{
    BoxError, Execute, IdempotentOperation, JSON, NoRefusal, Refusal, Refused, StepContext,
    StepError, json_response,
};
pub use outcome::{FailureCause, Outcome, UnknownCause};
pub(crate) use purge::in_batches;
pub use purge::{PurgeSettings, purge_expired};
pub use replay_cache::{ReplayCache, ReplayCacheSettings};
