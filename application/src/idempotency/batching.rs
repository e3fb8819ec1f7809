//! Batched requests' shared parts: the queues per operation, and what is counted of them
//! (`docs/storage.md#batched-operations`).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use domain::{ExistingRecord, StoredResponse};

use super::batch_queue::{BatchQueue, BatchSettings};
use super::batch_shares::RecentShares;
use super::operation::{IdempotentOperation, StepContext};
use super::outcome::UnknownCause;
use crate::ports::NewRecord;

/// Why a batch was rolled back and its members run again, each alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerunCause {
    /// A member's key was taken: its own run finds the record.
    KeyTaken,
    /// The step refused (a member's `clientOrderRef` taken, say): only its own run can tell
    /// which member.
    Refused,
    LockWaitTimeout,
    Deadlock,
    /// Galera's certification, or any commit the server reports rolled back.
    RolledBackAtCommit,
    /// Any other failure before the commit: lost connection, timeout, an error of the step.
    Failed,
}

impl RerunCause {
    /// The `cause` label of `batch_reruns_total`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::KeyTaken => "key_taken",
            Self::Refused => "refused",
            Self::LockWaitTimeout => "lock_wait_timeout",
            Self::Deadlock => "deadlock",
            Self::RolledBackAtCommit => "rolled_back_at_commit",
            Self::Failed => "failed",
        }
    }
}

/// Where a process's batch figures go (its metrics).
pub trait BatchObserver: Send + Sync {
    /// A batch of `members` requests went to the database as one transaction.
    fn batch_ran(&self, operation: &'static str, members: usize);
    /// A batch of `members` was rolled back and its members run alone.
    fn batch_rerun(&self, operation: &'static str, cause: RerunCause, members: usize);
}

/// Counts nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBatchObserver;

impl BatchObserver for NoBatchObserver {
    fn batch_ran(&self, _: &'static str, _: usize) {}
    fn batch_rerun(&self, _: &'static str, _: RerunCause, _: usize) {}
}

/// What a batch member brings: its record and its step's context and input.
pub(crate) struct Member<I> {
    pub(crate) record: NewRecord,
    pub(crate) context: StepContext,
    pub(crate) input: I,
    /// The request's span, where the batch's writes keep its trace.
    pub(crate) span: tracing::Span,
}

/// What a batch answers a member.
pub(crate) enum BatchAnswer {
    /// The key's record, COMPLETED, found by the batch's read before it wrote: answered from.
    Found(Box<ExistingRecord>),
    /// Committed with the batch.
    Executed {
        response: StoredResponse,
        record: Box<ExistingRecord>,
    },
    /// The batch's `COMMIT` was sent and its answer lost, or the database could not be
    /// reached: as each member alone would have been told.
    Unknown(UnknownCause),
    /// Rolled back, or left out of the batch's writes: run alone.
    Alone,
}

pub(crate) type Queue<I> = BatchQueue<Member<I>, BatchAnswer>;

type Queues = HashMap<&'static str, Arc<dyn Any + Send + Sync>>;

/// Shared by every worker of a process: one queue per batched operation.
pub struct Batching {
    settings: BatchSettings,
    queues: Mutex<Queues>,
    /// What each operation's recent batches met.
    recent: RecentShares,
    observer: Arc<dyn BatchObserver>,
}

impl std::fmt::Debug for Batching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batching")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Batching {
    #[must_use]
    pub fn new(settings: BatchSettings) -> Self {
        Self {
            settings,
            queues: Mutex::new(HashMap::new()),
            recent: RecentShares::default(),
            observer: Arc::new(NoBatchObserver),
        }
    }

    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn BatchObserver>) -> Self {
        self.observer = observer;
        self
    }

    /// Requests of `Op` waiting for a batch now: lets a test build a batch of known size.
    #[must_use]
    pub fn waiting<Op: IdempotentOperation>(&self) -> usize {
        self.queue::<Op>().waiting()
    }

    /// What `Op`'s recent batches met, which decides what its next one does first.
    pub(crate) fn recent(&self) -> &RecentShares {
        &self.recent
    }

    pub(crate) fn observer(&self) -> &dyn BatchObserver {
        self.observer.as_ref()
    }

    pub(crate) fn queue<Op: IdempotentOperation>(&self) -> Arc<Queue<Op::Input>> {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        let queue = queues
            .entry(Op::NAME)
            .or_insert_with(|| Arc::new(Queue::<Op::Input>::new(self.settings)))
            .clone();
        // Only `Op` names its queue `Op::NAME`, so the type is always the one inserted.
        queue
            .downcast::<Queue<Op::Input>>()
            .unwrap_or_else(|_| Arc::new(Queue::new(self.settings)))
    }
}

#[cfg(test)]
mod tests {
    use domain::{
        ActorId, ClientOrderRef, Fingerprinted, IdempotencyKey, NewOrder, Quantity, Scope, Sku,
        TenantId,
    };

    use super::*;
    use crate::CreateOrder;

    fn member() -> Member<NewOrder> {
        let (tenant, actor) = (TenantId::parse(1).unwrap(), ActorId::parse(1).unwrap());
        let input = NewOrder {
            client_order_ref: ClientOrderRef::parse("R").unwrap(),
            sku: Sku::parse("S").unwrap(),
            quantity: Quantity::parse(1).unwrap(),
        };
        let now = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        Member {
            record: NewRecord {
                scope: Scope {
                    tenant,
                    actor,
                    operation: CreateOrder::OPERATION,
                },
                key: IdempotencyKey::parse("k").unwrap(),
                fingerprint: input.fingerprint(&CreateOrder::OPERATION),
                created_at: now,
            },
            context: StepContext { tenant, actor, now },
            input,
            span: tracing::Span::none(),
        }
    }

    #[test]
    fn an_operation_has_one_queue_whose_waiting_members_are_counted() {
        let batching = Batching::new(BatchSettings {
            max_members: 16,
            max_in_flight: 1,
        });
        assert_eq!(batching.waiting::<CreateOrder>(), 0);
        let _driving = batching.queue::<CreateOrder>().join(member());
        let _waiting = batching.queue::<CreateOrder>().join(member());
        assert_eq!(
            batching.waiting::<CreateOrder>(),
            1,
            "the same queue, its slot taken"
        );
    }

    #[test]
    fn each_cause_has_the_label_the_metrics_document() {
        let labels = [
            RerunCause::KeyTaken,
            RerunCause::Refused,
            RerunCause::LockWaitTimeout,
            RerunCause::Deadlock,
            RerunCause::RolledBackAtCommit,
            RerunCause::Failed,
        ]
        .map(RerunCause::label);
        assert_eq!(
            labels,
            [
                "key_taken",
                "refused",
                "lock_wait_timeout",
                "deadlock",
                "rolled_back_at_commit",
                "failed"
            ]
        );
    }
}
