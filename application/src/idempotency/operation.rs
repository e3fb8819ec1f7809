//! What an idempotent operation is: a name, a permission, a validated input, its own
//! refusals, and a business step run inside the coordinator's transaction. Everything
//! else (key scoping, concurrency, replay, outcomes) is the coordinator's and the edge's,
//! written once. See "Adding an operation" in the README.

use std::fmt;
use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{ActorId, Fingerprinted, Operation, StoredResponse, TenantId};

use crate::ports::StoreError;

/// An error with its causes, for failures that have no meaning of their own.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The media type of every JSON answer, stored or read.
pub const JSON: &str = "application/json";

/// An idempotent operation, whatever store it runs on.
pub trait IdempotentOperation: Send + Sync + 'static {
    /// The versioned name (`orders.create.v1`): part of the key's scope and of the
    /// fingerprint, and the label of its metrics.
    const NAME: &'static str;
    /// [`Self::NAME`] as the domain's value; checked when the build evaluates it.
    const OPERATION: Operation = Operation::named(Self::NAME);
    /// The one permission a caller needs to run it, and to receive a replay of it.
    const PERMISSION: &'static str;
    /// The validated input.
    type Input: Fingerprinted + Send + Sync;
    /// The definite refusals its business step can make.
    type Refusal: Refusal;
}

/// The business step of an operation on the store transaction `Tx`.
pub trait Execute<Tx>: IdempotentOperation {
    /// Runs inside the open transaction and returns the response that is stored with the
    /// record and sent after the commit.
    fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &Self::Input,
    ) -> impl Future<Output = Result<StoredResponse, StepError<Self::Refusal>>> + Send;
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

/// How a refusal reads on the wire: `docs/http-api.md#problem-details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The HTTP status.
    pub status: u16,
    /// The stable machine-readable code.
    pub code: &'static str,
    /// A short summary.
    pub title: &'static str,
    /// What happened; it never quotes the request.
    pub detail: &'static str,
}

impl Refused {
    /// The one "not found" every route answers alike: it never tells whether the thing
    /// exists in another tenant.
    pub const NOT_FOUND: Self = Self {
        status: 404,
        code: "not_found",
        title: "Not found",
        detail: "No such resource.",
    };
}

/// A definite business refusal: the transaction rolls back, nothing is stored, and the key
/// stays free. Each operation has a type of its own; the edge renders any of them.
pub trait Refusal: fmt::Debug + Copy + Eq + Send + Sync + 'static {
    /// Every refusal of the type, for the API document.
    const ALL: &'static [Self];

    /// Its status, code and texts.
    fn refused(self) -> Refused;
}

/// The refusals of an operation that never refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRefusal {}

impl Refusal for NoRefusal {
    const ALL: &'static [Self] = &[];

    fn refused(self) -> Refused {
        match self {}
    }
}

/// Why a business step did not produce a response.
#[derive(Debug, thiserror::Error)]
pub enum StepError<R: Refusal> {
    /// Occurs on a definite business refusal.
    #[error("refused: {0:?}")]
    Rejected(R),
    /// Occurs when storage failed, classified by the adapter.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Occurs when the step could not build a storable response.
    #[error("the step failed")]
    Internal(#[source] BoxError),
}

/// A JSON answer to store: `status`, `Content-Type: application/json`, `location`.
///
/// # Errors
/// [`StepError::Internal`] when a part does not fit its column.
pub fn json_response<R: Refusal>(
    status: u16,
    location: Option<String>,
    body: Vec<u8>,
) -> Result<StoredResponse, StepError<R>> {
    StoredResponse::new(status, JSON.to_owned(), location, body)
        .map_err(|error| StepError::Internal(error.into()))
}
