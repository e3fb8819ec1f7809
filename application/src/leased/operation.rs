//! What a leased operation is (`docs/long-running-operations.md`): accepted at once through
//! the coordinator, carried out afterwards by a worker that holds a lease, calling another
//! service under a key fixed at acceptance. A team writes what this module asks for; the
//! claim, lease, fence, attempts, review, status read and admin actions are generic.

use std::fmt::Debug;
use std::future::Future;

use domain::{AttemptError, OrderId, ProviderId, TenantId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::BoxError;
use crate::error_chain::same_error;
use crate::idempotency::IdempotentOperation;
use crate::ports::StoreError;

/// A slow operation on an order, beside its acceptance step (`Execute`) and refusals.
pub trait LeasedOperation: IdempotentOperation {
    /// What the worker carries out, fixed at acceptance and stored with the operation as a
    /// JSON object (its members are the operation's input as an admin sees it).
    type Job: Serialize + DeserializeOwned + Debug + Send + Sync;
    /// What the status read and the admin show of a success, under [`Self::RESULT_MEMBER`].
    type Result: Serialize + utoipa::ToSchema + Send + Sync;
    /// The member of the status document that shows the result, `null` until there is one
    /// (`payment` for a capture).
    const RESULT_MEMBER: &'static str;
    /// The member a person names the other service's id of the work in, resolving an
    /// operation that needs review (`providerChargeId` for a capture).
    const PROVIDER_ID_MEMBER: &'static str;
    /// The call's and its result query's names in `payment_provider_calls_total`.
    const CALL_NAMES: CallNames;
}

/// How the metrics name a kind's two calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallNames {
    pub call: &'static str,
    pub lookup: &'static str,
}

/// One attempt's view of the operation: what the other service is asked.
#[derive(Debug)]
pub struct Work<'a, J> {
    pub id: Uuid,
    pub tenant: TenantId,
    pub order: OrderId,
    /// The other service's `Idempotency-Key`: the same on every attempt by every owner.
    pub key: &'a str,
    pub job: &'a J,
}

impl<J> Work<'_, J> {
    /// The operation's id, as the other service keeps it beside the work.
    #[must_use]
    pub fn reference(&self) -> String {
        self.id.hyphenated().to_string()
    }
}

/// A definite answer of the other service: it did the work (its id of it), or refused.
/// The id is of the form a person may enter resolving an operation, so every id recorded
/// fits its column and shows as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definite {
    pub id: ProviderId,
    pub succeeded: bool,
}

/// What one call came to.
#[derive(Debug, PartialEq)]
pub enum ProviderAnswer {
    Definite(Definite),
    /// Timeout, reset or 5xx: the work may or may not have been done.
    Unknown(NoAnswer),
}

/// The class is stored on the operation; the cause is for logs and never holds the key or
/// a body.
#[derive(Debug, thiserror::Error)]
#[error("no definite answer from the other service")]
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

/// The external call of a kind, on the service `P` it calls.
pub trait CallOut<P: ?Sized + Sync>: LeasedOperation {
    /// The work under the operation's fixed key.
    fn call(
        &self,
        service: &P,
        work: &Work<'_, Self::Job>,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// The other service's result query for the key: `Ok(None)` is a definite "never done".
    fn look_up(
        &self,
        service: &P,
        work: &Work<'_, Self::Job>,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;
}

/// How an operation ended definitely, as its kind records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndedAs<'a> {
    /// The work was done: the other service's id of it.
    Succeeded {
        provider_id: &'a str,
    },
    Declined,
}

/// The operation a kind records the end of.
#[derive(Debug)]
pub struct Ended<'a, J> {
    pub id: Uuid,
    pub tenant: TenantId,
    pub order: OrderId,
    pub job: &'a J,
    pub outcome: EndedAs<'a>,
    pub at: chrono::DateTime<chrono::Utc>,
}

/// A kind's writes when its operation ends definitely, by the worker or by a person, inside
/// the transaction whose fence let the end through: its business rows and events.
pub trait RecordOutcome<Tx>: LeasedOperation {
    /// The result to show, if the end has one.
    fn record(
        &self,
        tx: &mut Tx,
        ended: &Ended<'_, Self::Job>,
    ) -> impl Future<Output = Result<Option<Self::Result>, StoreError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_answers_are_alike_only_of_one_class_and_one_cause() {
        let timeout = || NoAnswer::new(AttemptError::Timeout, "read timed out");
        assert_eq!(timeout(), timeout());
        assert_ne!(
            timeout(),
            NoAnswer::new(AttemptError::Transport, "read timed out")
        );
        assert_ne!(timeout(), NoAnswer::new(AttemptError::Timeout, "reset"));
    }
}
