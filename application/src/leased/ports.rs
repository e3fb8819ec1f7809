//! The worker's ports. Every write takes the worker's [`Lease`] and returns `false` when the
//! fence refused it (another worker claimed the operation since): the worker stops.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{AttemptError, Generation, Lease, LeaseView, OperationState, OrderId, TenantId};
use uuid::Uuid;

use super::operation::EndedAs;
use super::recorded::RecordEnd;
use crate::ports::{StoreError, UnitOfWork};

/// A pending operation whose attempt is due, of any kind the worker serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueOperation {
    pub id: Uuid,
    /// Its kind's name (`payments.capture.v1`): which kind's code works it.
    pub kind: String,
    pub tenant: TenantId,
    pub order: OrderId,
    /// The kind's job as stored at acceptance (a JSON object).
    pub input: Vec<u8>,
    /// Fixed at acceptance: the same for every attempt by every owner.
    pub downstream_key: String,
    /// Calls so far that ended without a definite answer.
    pub attempts: u32,
    /// Its key at the other service is as old as that.
    pub accepted_at: DateTime<Utc>,
    pub lease: LeaseView,
    /// The accepting request's trace, as the adapter stored it; opaque here. Each attempt
    /// continues it.
    pub trace_context: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Done: the kind records its success with the other service's id of the work.
    Succeeded {
        provider_id: String,
    },
    Declined,
    /// With why the last attempt got no definite answer, or why none was made.
    NeedsReview(AttemptError),
}

impl Ending {
    #[must_use]
    pub fn state(&self) -> OperationState {
        match self {
            Self::Succeeded { .. } => OperationState::Succeeded,
            Self::Declined => OperationState::Declined,
            Self::NeedsReview(_) => OperationState::NeedsReview,
        }
    }

    /// What the kind records of a definite end; an end for review records nothing.
    #[must_use]
    pub fn recorded_as(&self) -> Option<EndedAs<'_>> {
        match self {
            Self::Succeeded { provider_id } => Some(EndedAs::Succeeded { provider_id }),
            Self::Declined => Some(EndedAs::Declined),
            Self::NeedsReview(_) => None,
        }
    }
}

/// The end the worker writes, under its lease's fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationEnd<'a> {
    pub operation: &'a DueOperation,
    pub lease: &'a Lease,
    pub ending: &'a Ending,
    /// Every call counted, the last one included.
    pub attempts: u32,
    pub now: DateTime<Utc>,
}

/// A claim of one operation of a group: generation `seen` + 1 under `lease`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim<'a> {
    pub id: Uuid,
    pub seen: Generation,
    pub lease: &'a Lease,
}

pub trait OperationStore: UnitOfWork + Send + Sync {
    /// Pending operations of these kinds, with the lease free or run out, and the next
    /// attempt due at `now`. Kinds this process does not serve are left for one that does.
    fn due(
        &self,
        kinds: &[&'static str],
        limit: usize,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<DueOperation>, StoreError>> + Send;

    /// One conditional `UPDATE` on generation `seen`: exactly one claimer wins each generation.
    fn claim(
        &self,
        id: Uuid,
        seen: Generation,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    fn extend(
        &self,
        id: Uuid,
        lease: &Lease,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Each of `claims` as [`Self::claim`] answers it, in their order. A store may write
    /// them in one statement: each still wins only its own generation.
    fn claim_all(
        &self,
        claims: &[Claim<'_>],
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send {
        async move {
            let mut won = Vec::with_capacity(claims.len());
            for claim in claims {
                won.push(self.claim(claim.id, claim.seen, claim.lease, now).await?);
            }
            Ok(won)
        }
    }

    /// Each of `leases` (the operation and its extended lease) as [`Self::extend`] answers
    /// it, in their order; a store may write them in one statement.
    fn extend_all(
        &self,
        leases: &[(Uuid, &Lease)],
    ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send {
        async move {
            let mut extended = Vec::with_capacity(leases.len());
            for (id, lease) in leases {
                extended.push(self.extend(*id, lease).await?);
            }
            Ok(extended)
        }
    }

    /// One transaction checks the generation first, then ends the row and runs the kind's
    /// `record` for a definite end; nothing is written if refused or failed.
    fn complete(
        &self,
        end: &OperationEnd<'_>,
        record: &dyn RecordEnd<Self::Tx>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// The ends of a group of operations of one kind, in one transaction: each as
    /// [`Self::complete`] answers it (`false` where its fence refused it, and that end
    /// writes nothing), or an error and none of them written.
    fn complete_all(
        &self,
        ends: &[OperationEnd<'_>],
        record: &dyn RecordEnd<Self::Tx>,
    ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send;

    /// Counts the attempt and why it failed, sets when the next is due and gives the lease
    /// back.
    fn retry_later(
        &self,
        id: Uuid,
        lease: &Lease,
        attempts: u32,
        error: AttemptError,
        next_attempt_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// How many operations are in each state: what the `operations_in_state` gauge shows, so
/// an alert sees an operation waiting for a person (`needs_review`) however it got there.
pub trait OperationCensus: Send + Sync {
    /// The states some operation is in, with their counts (a state absent has none).
    ///
    /// # Errors
    /// [`StoreError`] as the store's reads give it.
    fn count_by_state(
        &self,
    ) -> impl Future<Output = Result<Vec<(OperationState, u64)>, StoreError>> + Send;
}
