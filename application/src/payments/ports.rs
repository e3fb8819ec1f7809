//! The capture worker's ports. Every write takes the worker's [`Lease`] and returns `false`
//! when the fence refused it (another worker claimed the operation since): the worker stops.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{
    AttemptError, Generation, Lease, LeaseView, OperationState, PaymentCapture, TenantId,
};
use uuid::Uuid;

use crate::BoxError;
use crate::error_chain::same_error;
use crate::ports::StoreError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueOperation {
    pub id: Uuid,
    pub tenant: TenantId,
    pub input: PaymentCapture,
    /// Fixed at acceptance: the same for every attempt by every owner.
    pub downstream_key: String,
    /// Provider calls so far that ended without a definite answer.
    pub attempts: u32,
    /// Its key at the provider is as old as that.
    pub accepted_at: DateTime<Utc>,
    pub lease: LeaseView,
    /// The accepting request's trace, as the adapter stored it; opaque here. Each attempt
    /// continues it.
    pub trace_context: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    pub id: String,
    pub succeeded: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Charged: the payment row is written with the end state.
    Succeeded {
        charge_id: String,
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
}

pub trait OperationStore: Send + Sync {
    /// Pending, with the lease free or run out, and the next attempt due at `now`.
    fn due(
        &self,
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

    /// One transaction checks the generation first, then ends the row (with the payment for a
    /// success); nothing is written if refused or failed. `attempts` includes the last call.
    fn complete(
        &self,
        id: Uuid,
        lease: &Lease,
        ending: &Ending,
        attempts: u32,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

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

#[derive(Debug, PartialEq)]
pub enum ProviderAnswer {
    Definite(Charge),
    /// Timeout, reset or 5xx: the charge may or may not exist.
    Unknown(NoAnswer),
}

/// The class is stored on the operation; the cause is for logs and never holds the key or
/// a body.
#[derive(Debug, thiserror::Error)]
#[error("no definite answer from the payment provider")]
pub struct NoAnswer {
    pub class: AttemptError,
    #[source]
    pub cause: BoxError,
}

impl NoAnswer {
    pub fn new(class: AttemptError, cause: impl Into<BoxError>) -> Self {
        Self {
            class,
            cause: cause.into(),
        }
    }
}

impl PartialEq for NoAnswer {
    fn eq(&self, other: &Self) -> bool {
        self.class == other.class && same_error(self, other)
    }
}

pub trait PaymentProvider: Send + Sync {
    /// `POST /v1/charges` with `Idempotency-Key: key`.
    fn charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// `GET /v1/charges?idempotency_key=key`; `Ok(None)` is a definite "none" (404).
    fn lookup(&self, key: &str) -> impl Future<Output = Result<Option<Charge>, NoAnswer>> + Send;
}
