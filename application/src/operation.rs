//! What an idempotent operation is: a validated input with fingerprint fields, and a
//! business step run inside the coordinator's transaction.
//!
//! Adding an operation (say `orders.cancel.v1`) takes three things and nothing else:
//! 1. a validated input type implementing [`domain::Fingerprinted`];
//! 2. a repository trait for its writes, implemented by the adapter's transaction;
//! 3. an [`IdempotentOperation`] whose `execute` writes and returns the response to store.
//!
//! The coordinator then gives it key scoping, fingerprint checks, concurrency control,
//! replay and the outcome taxonomy. `tests/coordinator/second_operation.rs` shows a toy one.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{ActorId, Fingerprinted, Operation, StoredResponse, TenantId};

use crate::ports::StoreError;

/// The [`Operation`] an operation type names with a literal: checked by each type's unit
/// test, so the fallback is unreachable.
pub(crate) fn operation_named(literal: &'static str) -> Operation {
    Operation::parse(literal).unwrap_or_else(|_| unreachable!("valid operation literal"))
}

/// What the business step may know about the request besides its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepContext {
    /// The caller's tenant.
    pub tenant: TenantId,
    /// The caller.
    pub actor: ActorId,
    /// When execution began; also the record's `created_at`.
    pub now: DateTime<Utc>,
}

/// A definite business refusal: the transaction rolls back and nothing is stored. Each
/// operation adds the refusals it can make; the edge gives each its status and code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// Another key already created an order with this `clientOrderRef` in this tenant.
    ClientOrderRefConflict,
    /// The order named in the request does not exist in the caller's tenant.
    OrderNotFound,
    /// The order already has a pending or succeeded payment capture.
    PaymentExists,
}

/// Why a business step did not produce a response.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// Occurs on a definite business refusal.
    #[error("rejected: {0:?}")]
    Rejected(Rejection),
    /// Occurs when storage failed, classified by the adapter.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Occurs when the step could not build a storable response.
    #[error("internal: {0}")]
    Internal(String),
}

/// One idempotent operation, generic over the transaction type `Tx` it writes through.
pub trait IdempotentOperation<Tx>: Send + Sync {
    /// The validated input.
    type Input: Fingerprinted + Send + Sync;

    /// The versioned operation name, part of the key's scope and the fingerprint.
    fn operation(&self) -> &Operation;

    /// The permission a caller needs to run it, and to receive a replay of it.
    fn required_permission(&self) -> &str;

    /// The business step: runs inside the open transaction and returns the response that
    /// will be stored with the record and sent after the commit.
    fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &Self::Input,
    ) -> impl Future<Output = Result<StoredResponse, StepError>> + Send;
}
