//! One request: handed to a process as a task of its own, its answer checked against the
//! database in the step it is given, and sent back to its client, unless the request was
//! dropped or its process crashed on the way.

use std::sync::Arc;

use application::{Caller, CreateOrder, CreateRefusal, Outcome};
use domain::{ActorId, IdempotencyKey, TenantId};
use futures_channel::oneshot;

use super::shared::{Body, Sent, Shared, Who};
use crate::executor::ProcessId;
use crate::history::Event;

/// A request on its way; its answer comes through [`receive`].
pub(crate) struct Pending {
    key: String,
    answer: oneshot::Receiver<Outcome<CreateRefusal>>,
}

/// Hands one request of `who` to `process` at once; `None` when it cannot be sent.
pub(crate) fn dispatch(
    shared: &Arc<Shared>,
    process: usize,
    who: Who,
    key: &str,
    body: &Body,
) -> Option<Pending> {
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
        body: body.label.clone(),
    });
    let (reply, answer) = oneshot::channel();
    let task_shared = Arc::clone(shared);
    let (task_key, task_body) = (key.to_owned(), body.clone());
    let sent_at = shared.world.strikes();
    shared.spawner.spawn(Some(ProcessId(process)), async move {
        let caller = Caller::new(tenant, actor, "orders:create");
        let outcome = coordinator
            .run(&CreateOrder, &caller, &parsed, &task_body.order)
            .await;
        let sent = Sent {
            process,
            who,
            key: &task_key,
            body: &task_body,
        };
        let lived_through = (sent_at, task_shared.world.strikes());
        task_shared.check(&sent, lived_through, &outcome);
        let _ = reply.send(outcome);
    });
    Some(Pending {
        key: scoped,
        answer,
    })
}

/// The answer, or `None` when none came (the request was dropped, or its process crashed).
pub(crate) async fn receive(
    shared: &Shared,
    pending: Option<Pending>,
) -> Option<Outcome<CreateRefusal>> {
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
pub(crate) fn is_definite(answer: Option<&Outcome<CreateRefusal>>) -> bool {
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
