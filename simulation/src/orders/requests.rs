//! One request: handed to a process as a task of its own, its answer checked against the
//! database in the step it is given, and sent back to its client, unless the request was
//! dropped or its process crashed on the way.

use std::collections::BTreeSet;
use std::sync::Arc;

use application::{Caller, CreateOrder, CreateRefusal, IdempotentOperation, Outcome, Steps};
use domain::{ActorId, IdempotencyKey, TenantId};
use futures_channel::oneshot;

use super::answers::Answered;
use super::checks;
use super::shared::{Asked, Body, Shared, Who};
use crate::executor::ProcessId;
use crate::history::Event;
use crate::world::{Db, RecordKey, SimTx};

/// A request on its way; its answer comes through [`receive`].
pub(crate) struct Pending<R> {
    key: String,
    answer: oneshot::Receiver<Outcome<R>>,
}

/// What one request is: its operation, input and label, sent for `who` under `key`.
pub(crate) struct Request<'a, Op: IdempotentOperation> {
    pub(crate) op: Op,
    pub(crate) who: Who,
    pub(crate) key: &'a str,
    pub(crate) label: String,
    pub(crate) input: Op::Input,
}

/// The rule an operation's answers are judged by: the database as it is when the answer
/// is given, the answer, the keys executed so far, and what the run remembers.
pub(crate) type Rule<Op> = fn(
    &Db,
    &Answered<'_, <Op as IdempotentOperation>::Input, <Op as IdempotentOperation>::Refusal>,
    &mut BTreeSet<RecordKey>,
    &Shared,
) -> Result<(), String>;

/// Hands one request to `process` at once, its answer judged by `rule` in the step it is
/// given (with the faults struck while it ran); `None` when it cannot be sent.
pub(crate) fn dispatch_request<Op>(
    shared: &Arc<Shared>,
    process: usize,
    request: Request<'_, Op>,
    rule: Rule<Op>,
) -> Option<Pending<Op::Refusal>>
where
    Op: IdempotentOperation + Send + Sync + 'static,
    Op::Input: Send + Sync + 'static,
    Op::Refusal: std::fmt::Debug + Send + 'static,
    SimTx: Steps<Op>,
{
    let Request {
        op,
        who,
        key,
        label,
        input,
    } = request;
    let (Ok(tenant), Ok(actor), Ok(parsed)) = (
        TenantId::parse(who.tenant),
        ActorId::parse(who.actor),
        IdempotencyKey::parse(key),
    ) else {
        return None;
    };
    let coordinator = shared.processes.get(process)?;
    let scoped = format!("{who}:{key}");
    shared.note(Event::Sent {
        process,
        key: scoped.clone(),
        body: label.clone(),
    });
    let (reply, answer) = oneshot::channel();
    let task_shared = Arc::clone(shared);
    let task_key = key.to_owned();
    let sent_at = shared.world.strikes();
    shared.spawner.spawn(Some(ProcessId(process)), async move {
        let caller = Caller::new(tenant, actor, Op::PERMISSION);
        let outcome = coordinator.run(&op, &caller, &parsed, &input).await;
        let lived_through = (sent_at, task_shared.world.strikes());
        let asked = Asked {
            process,
            who,
            key: &task_key,
            label,
        };
        task_shared.judge::<Op>(asked, &input, lived_through, &outcome, rule);
        let _ = reply.send(outcome);
    });
    Some(Pending {
        key: scoped,
        answer,
    })
}

/// Hands one create of `who` to `process` at once; `None` when it cannot be sent.
pub(crate) fn dispatch(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    body: &Body,
) -> Option<Pending<CreateRefusal>> {
    let request = Request {
        op: CreateOrder,
        who,
        key,
        label: body.label.clone(),
        input: body.order.clone(),
    };
    dispatch_request(shared, process, request, |db, answered, executed, _| {
        checks::check(db, answered, executed)
    })
}

/// The answer, or `None` when none came (the request was dropped, or its process crashed).
pub(crate) async fn receive<R>(shared: &Shared, pending: Option<Pending<R>>) -> Option<Outcome<R>> {
    let pending = pending?;
    match pending.answer.await {
        Ok(outcome) => Some(outcome),
        Err(_) => {
            shared.note(Event::NoResponse { key: pending.key });
            None
        }
    }
}

/// One request, sent and waited for.
pub(crate) async fn send(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    body: &Body,
) -> Option<Outcome<CreateRefusal>> {
    receive(shared, dispatch(shared, process, who, key, body)).await
}

/// An answer that says what happened (or definitely did not), as a calm world gives.
pub(crate) fn is_definite<R>(answer: Option<&Outcome<R>>) -> bool {
    matches!(
        answer,
        Some(
            Outcome::Executed { .. }
                | Outcome::Replayed { .. }
                | Outcome::KeyReused
                | Outcome::Rejected(_)
        )
    )
}
