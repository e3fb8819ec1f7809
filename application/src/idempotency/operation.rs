//! What an idempotent operation is; the coordinator and the edge do the rest, written once
//! (`docs/adding-an-operation.md`).

use std::fmt;
use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{ActorId, Fingerprinted, Operation, StoredResponse, TenantId};

use crate::events::{EventType, NewEvent};
use crate::ports::StoreError;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a team writes for a new operation, with its [`Execute`] step.
pub trait IdempotentOperation: Send + Sync + 'static {
    /// Part of the key's scope and the fingerprint, and the label of its metrics.
    const NAME: &'static str;
    /// Checked when the build evaluates it.
    const OPERATION: Operation = Operation::named(Self::NAME);
    /// Needed to run it and to receive a replay of it.
    const PERMISSION: &'static str;
    /// The event types its step writes to the outbox: the stream carries their subjects.
    const EVENTS: &'static [EventType] = &[];
    /// Cloned once into a batch's queue when the operation is batched.
    type Input: Fingerprinted + Clone + Send + Sync + 'static;
    type Refusal: Refusal;
    /// What a batch's plan settles for a member's writes beyond its answer (the id its row
    /// takes, an operation's ids): [`Planned::reserved`]. `()` for an operation that is
    /// never batched, or needs nothing more than its input.
    type Reserved: Send + Sync + 'static;
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

    /// Whether requests arriving together share one transaction
    /// (`docs/storage.md#batched-operations`): only for an operation whose batched form,
    /// [`Execute::plan_batch`] then [`Execute::execute_batch`], writes multi-row statements,
    /// and whose plan leaves to run alone every member a stored refusal could answer (its
    /// savepoint is a run alone's).
    const BATCHED: bool = false;

    /// A batch's first half, before anything of it is written: for each member, in order,
    /// what it writes and answers ([`Planned`]), or `None` when its answer depends on what
    /// it alone may find (a refusal, another member's row): that member runs alone after
    /// the batch. The planned members' records are then inserted already complete. An error
    /// fails the whole batch, and every member then runs alone through [`Execute::execute`].
    ///
    /// `wary` while recent batches of the operation were refused: a plan that can read what
    /// would refuse a member (a create's taken references) reads it then and leaves that
    /// member alone, so one refusal does not send the whole batch to run alone again.
    fn plan_batch(
        &self,
        _tx: &mut Tx,
        _members: &[BatchMember<Self::Input>],
        _wary: bool,
    ) -> impl Future<Output = Result<BatchPlan<Self::Reserved>, StepError<Self::Refusal>>> + Send
    where
        Tx: Send,
    {
        async { Err(not_batched(Self::NAME)) }
    }

    /// A batch's second half: the planned members' rows, in their order, as
    /// [`Execute::plan_batch`] planned them. Any error fails the whole batch, as there: a
    /// refusal here needs no care beyond being returned.
    fn execute_batch(
        &self,
        _tx: &mut Tx,
        _batch: &[PlannedMember<'_, Self::Input, Self::Reserved>],
    ) -> impl Future<Output = Result<(), StepError<Self::Refusal>>> + Send
    where
        Tx: Send,
    {
        async { Err(not_batched(Self::NAME)) }
    }
}

/// What a batch settles for one member before it writes: what its writes take that its
/// input does not say (`R`, the operation's [`IdempotentOperation::Reserved`]), the
/// response stored with its record, and the events it adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned<R> {
    pub reserved: R,
    pub response: StoredResponse,
    pub events: Vec<NewEvent>,
}

impl<R> Planned<R> {
    /// The events of a batch's planned members, in their order: one multi-row insert.
    #[must_use]
    pub fn events_of<I>(batch: &[PlannedMember<'_, I, R>]) -> Vec<NewEvent> {
        batch
            .iter()
            .flat_map(|(_, planned)| planned.events.iter().cloned())
            .collect()
    }
}

/// A member of a batch with its [`Planned`], as the batch's second half writes it.
pub type PlannedMember<'a, I, R> = (&'a BatchMember<I>, &'a Planned<R>);

/// Each member's [`Planned`], in the members' order; `None` runs that member alone.
pub type BatchPlan<R> = Vec<Option<Planned<R>>>;

/// An operation without a batched form asked for one: the coordinator asks only when
/// [`Execute::BATCHED`] says so.
#[derive(Debug, thiserror::Error)]
#[error("{0} has no batched form")]
struct NotBatched(&'static str);

fn not_batched<R: Refusal>(operation: &'static str) -> StepError<R> {
    StepError::Internal(Box::new(NotBatched(operation)))
}

/// One request of a batch, as its step sees it.
#[derive(Debug, Clone)]
pub struct BatchMember<I> {
    pub context: StepContext,
    pub input: I,
    /// The span of the request it came with: a write that keeps its request's trace (a
    /// leased operation's acceptance) reads the member's here, not the batch's.
    pub span: tracing::Span,
}

/// `Op`'s step seen from the transaction it runs on, implemented for every transaction
/// with the ports `Op` needs: a list of operations can then be a store's bound
/// (`Tx: Steps<CreateOrder> + Steps<CancelOrder>`) and each port is named once, where the
/// operation implements [`Execute`].
pub trait Steps<Op: IdempotentOperation>: Send {
    /// [`Execute::BATCHED`] of `Op` on this transaction.
    const BATCHED: bool;

    fn plan_batch(
        &mut self,
        op: &Op,
        members: &[BatchMember<Op::Input>],
        wary: bool,
    ) -> impl Future<Output = Result<BatchPlan<Op::Reserved>, StepError<Op::Refusal>>> + Send;

    fn step_batch(
        &mut self,
        op: &Op,
        batch: &[PlannedMember<'_, Op::Input, Op::Reserved>],
    ) -> impl Future<Output = Result<(), StepError<Op::Refusal>>> + Send;

    fn step(
        &mut self,
        op: &Op,
        context: StepContext,
        input: &Op::Input,
    ) -> impl Future<Output = Result<StoredResponse, StepError<Op::Refusal>>> + Send;
}

impl<Tx: Send, Op: Execute<Tx>> Steps<Op> for Tx {
    const BATCHED: bool = Op::BATCHED;

    fn plan_batch(
        &mut self,
        op: &Op,
        members: &[BatchMember<Op::Input>],
        wary: bool,
    ) -> impl Future<Output = Result<BatchPlan<Op::Reserved>, StepError<Op::Refusal>>> + Send {
        op.plan_batch(self, members, wary)
    }

    fn step_batch(
        &mut self,
        op: &Op,
        batch: &[PlannedMember<'_, Op::Input, Op::Reserved>],
    ) -> impl Future<Output = Result<(), StepError<Op::Refusal>>> + Send {
        op.execute_batch(self, batch)
    }

    fn step(
        &mut self,
        op: &Op,
        context: StepContext,
        input: &Op::Input,
    ) -> impl Future<Output = Result<StoredResponse, StepError<Op::Refusal>>> + Send {
        op.execute(self, context, input)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepContext {
    pub tenant: TenantId,
    pub actor: ActorId,
    /// Also the record's `created_at`.
    pub now: DateTime<Utc>,
}

/// A definite refusal, named by its stable code; its variant carries its facts. How it
/// reads on the wire (status, title, detail) is the edge's (`docs/http-api.md#problem-details`).
///
/// By default the transaction rolls back, nothing is stored and the key stays free. A
/// refusal that [`stores`](Refusal::is_stored) itself is the key's answer instead
/// (`docs/http-api.md#stored-refusals`).
pub trait Refusal: fmt::Debug + Copy + Eq + Send + Sync + 'static {
    /// Every refusal of the type, for the API document.
    const ALL: &'static [Self];

    /// The stable, machine-readable `code` clients match on.
    fn code(self) -> &'static str;

    /// Whether the refusal is stored as the key's answer: the step's writes are undone,
    /// the record completes with the refusal, and a retry with the key gets it again byte
    /// for byte, whatever changed since. For refusals that depend only on the state the
    /// request met (over a limit, out of stock), never on a passing condition.
    fn is_stored(self) -> bool {
        false
    }
}

/// The code of a refusal that never tells whether the thing exists in another tenant,
/// alike on every route.
pub const NOT_FOUND: &str = "not_found";

/// For an operation that never refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRefusal {}

impl Refusal for NoRefusal {
    const ALL: &'static [Self] = &[];

    fn code(self) -> &'static str {
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

/// The form a stored refusal is stored in, which only the edge knows: given to the
/// coordinator by whoever serves the operations (`Coordinator::with_refusal_forms`).
pub trait RefusalForms<R: Refusal>: Send + Sync {
    /// The stored response a retry with the key will get again.
    fn stored(&self, refusal: R) -> Result<StoredResponse, BoxError>;
}

/// No form for any refusal: a stored refusal then fails the request rather than being
/// answered without being stored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRefusalForms;

impl<R: Refusal> RefusalForms<R> for NoRefusalForms {
    fn stored(&self, refusal: R) -> Result<StoredResponse, BoxError> {
        Err(Box::new(NoForm(refusal.code())))
    }
}

/// A stored refusal met a coordinator that was given no forms.
#[derive(Debug, thiserror::Error)]
#[error("no stored form for the refusal {0}: the coordinator was built without refusal forms")]
struct NoForm(&'static str);
