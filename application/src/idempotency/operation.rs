//! What an idempotent operation is; the coordinator and the edge do the rest, written once
//! (README, "Adding an operation").

use std::fmt;
use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{ActorId, Fingerprinted, Operation, StoredResponse, TenantId};

use crate::ports::StoreError;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub const JSON: &str = "application/json";

/// What a team writes for a new operation, with its [`Execute`] step.
pub trait IdempotentOperation: Send + Sync + 'static {
    /// Part of the key's scope and the fingerprint, and the label of its metrics.
    const NAME: &'static str;
    /// Checked when the build evaluates it.
    const OPERATION: Operation = Operation::named(Self::NAME);
    /// Needed to run it and to receive a replay of it.
    const PERMISSION: &'static str;
    type Input: Fingerprinted + Send + Sync;
    type Refusal: Refusal;
}

/// The business step, on the store transaction `Tx` whose ports it needs.
pub trait Execute<Tx>: IdempotentOperation {
    /// The response is stored with the record and sent after the commit.
    fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &Self::Input,
    ) -> impl Future<Output = Result<StoredResponse, StepError<Self::Refusal>>> + Send;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepContext {
    pub tenant: TenantId,
    pub actor: ActorId,
    /// Also the record's `created_at`.
    pub now: DateTime<Utc>,
}

/// How a refusal reads on the wire: `docs/http-api.md#problem-details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub code: &'static str,
    pub title: &'static str,
    /// Never quotes the request.
    pub detail: &'static str,
}

impl Refused {
    /// Alike on every route: it never tells whether the thing exists in another tenant.
    pub const NOT_FOUND: Self = Self {
        status: 404,
        code: "not_found",
        title: "Not found",
        detail: "No such resource.",
    };
}

/// A definite refusal: the transaction rolls back, nothing is stored, the key stays free.
pub trait Refusal: fmt::Debug + Copy + Eq + Send + Sync + 'static {
    /// Every refusal of the type, for the API document.
    const ALL: &'static [Self];

    fn refused(self) -> Refused;
}

/// For an operation that never refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRefusal {}

impl Refusal for NoRefusal {
    const ALL: &'static [Self] = &[];

    fn refused(self) -> Refused {
        match self {}
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StepError<R: Refusal> {
    #[error("refused: {0:?}")]
    Rejected(R),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the step failed")]
    Internal(#[source] BoxError),
}

/// A step's stored JSON answer; a part that does not fit its column is `Internal`.
pub fn json_response<R: Refusal>(
    status: u16,
    location: Option<String>,
    body: Vec<u8>,
) -> Result<StoredResponse, StepError<R>> {
    StoredResponse::new(status, JSON.to_owned(), location, body)
        .map_err(|error| StepError::Internal(error.into()))
}
