//! The generic core every idempotent operation runs through.

mod answer;
mod batch_queue;
mod batch_shares;
mod batching;
mod coordinator;
mod in_flight;
mod operation;
mod outcome;
mod purge;
mod replay_cache;

pub use answer::{Answer, JSON, Location, answer};
pub use batch_queue::BatchSettings;
pub use batching::{BatchObserver, Batching, NoBatchObserver, RerunCause};
pub use coordinator::{Coordinator, CoordinatorSettings};
pub use in_flight::InFlight;
pub use operation::{
    BatchMember, BatchPlan, BoxError, Execute, IdempotentOperation, NOT_FOUND, NoRefusal,
    NoRefusalForms, Planned, PlannedMember, Refusal, RefusalForms, StepContext, StepError, Steps,
};
pub use outcome::{FailureCause, Outcome, UnknownCause};
pub(crate) use purge::in_batches;
pub use purge::{PurgeSettings, purge_expired};
pub use replay_cache::{ReplayCache, ReplayCacheSettings};
