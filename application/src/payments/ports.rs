//! The capture worker's ports: the operation rows it claims and completes under its lease,
//! and the external payment provider (`docs/long-running-operations.md`).
//!
//! Every write method takes the worker's [`Lease`] and answers whether it changed the
//! row: `false` means the fence refused it (another worker claimed the operation since),
//! and the worker stops. The store decides with conditional `UPDATE`s whose row counts
//! are the answer, and checks the generation inside the same transaction as any business
//! write (the payment row).

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{Generation, Lease, LeaseView, OperationState, PaymentCapture, TenantId};
use uuid::Uuid;

use crate::BoxError;
use crate::error_chain::same_error;
use crate::ports::StoreError;

/// An operation waiting for a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueOperation {
    /// Its id (`operationId`).
    pub id: Uuid,
    /// The tenant it belongs to.
    pub tenant: TenantId,
    /// What to capture.
    pub input: PaymentCapture,
    /// The provider's `Idempotency-Key`: fixed at acceptance for the operation's whole
    /// life, the same for every attempt by every owner.
    pub downstream_key: String,
    /// Provider calls so far that ended without a definite answer.
    pub attempts: u32,
    /// When it was accepted: its key is as old as that at the provider.
    pub accepted_at: DateTime<Utc>,
    /// Its lease as stored.
    pub lease: LeaseView,
}

/// A charge the provider reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    /// The provider's id of the charge.
    pub id: String,
    /// Whether it went through.
    pub succeeded: bool,
}

/// How an operation ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Charged: the payment row is written with the end state.
    Succeeded {
        /// The provider's charge id.
        charge_id: String,
    },
    /// Definitely declined.
    Declined,
    /// For a person to look at.
    NeedsReview,
}

impl Ending {
    /// The state it leaves the operation in.
    #[must_use]
    pub fn state(&self) -> OperationState {
        match self {
            Self::Succeeded { .. } => OperationState::Succeeded,
            Self::Declined => OperationState::Declined,
            Self::NeedsReview => OperationState::NeedsReview,
        }
    }
}

/// The operation rows, as workers see them.
pub trait OperationStore: Send + Sync {
    /// Up to `limit` pending operations whose lease is free or ran out and whose next
    /// attempt is due at `now`.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn due(
        &self,
        limit: usize,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<DueOperation>, StoreError>> + Send;

    /// Takes `lease` if the operation is still pending at generation `seen` with its
    /// lease free or run out at `now`: one conditional `UPDATE`; `true` when it changed
    /// the row (exactly one claimer wins each generation).
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn claim(
        &self,
        id: Uuid,
        seen: Generation,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Moves the lease's expiry on, if the generation is still the lease's.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn extend(
        &self,
        id: Uuid,
        lease: &Lease,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Ends the operation (and, for a success, inserts its payment row) in one
    /// transaction that first checks the lease's generation is current; `false`, with
    /// nothing written, when it is not. `attempts` is the count of calls without a
    /// definite answer it ends with (the last one included, for `needs_review`).
    ///
    /// # Errors
    /// Any [`StoreError`]; nothing is written then.
    fn complete(
        &self,
        id: Uuid,
        lease: &Lease,
        ending: &Ending,
        attempts: u32,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Records one more attempt without a definite answer, sets when the next is due,
    /// and gives the lease back, as of `now`; `false`, with nothing written, when the
    /// lease was lost.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn retry_later(
        &self,
        id: Uuid,
        lease: &Lease,
        attempts: u32,
        next_attempt_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// What the provider said about a charge.
#[derive(Debug, PartialEq)]
pub enum ProviderAnswer {
    /// A definite answer: charged (or declined).
    Definite(Charge),
    /// No answer that can be trusted (timeout, reset, 5xx): the charge may or may not
    /// exist.
    Unknown(NoAnswer),
}

/// Why the provider gave no definite answer; the cause is for logs and never holds the
/// key or a body.
#[derive(Debug, thiserror::Error)]
#[error("no definite answer from the payment provider")]
pub struct NoAnswer(#[source] pub BoxError);

/// Equal when the causes say the same.
impl PartialEq for NoAnswer {
    fn eq(&self, other: &Self) -> bool {
        same_error(self, other)
    }
}

/// The external payment provider, called with the operation's downstream key.
pub trait PaymentProvider: Send + Sync {
    /// `POST /v1/charges` with `Idempotency-Key: key`.
    fn charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// `GET /v1/charges?idempotency_key=key`: the charge made under `key`, if any;
    /// `Ok(None)` is a definite "none" (404).
    ///
    /// # Errors
    /// [`NoAnswer`] when the provider gave no definite answer.
    fn lookup(&self, key: &str) -> impl Future<Output = Result<Option<Charge>, NoAnswer>> + Send;
}
