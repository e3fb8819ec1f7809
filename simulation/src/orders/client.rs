//! The clients of a run: each has intents (an order it wants, named by its SKU) and does
//! what the contract tells a client to: a retry with the same key after an unknown answer
//! (`503`, `409`, no response), a new key only after a definite "nothing was done". Some
//! send copies of a request at once, another body under a key, or a used
//! `clientOrderRef` under a new key.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use application::{Caller, CreateOrder, CreateRefusal, Outcome};
use domain::{ActorId, ClientOrderRef, IdempotencyKey, NewOrder, Quantity, Sku, TenantId};
use futures_channel::oneshot;

use super::checks::{self, Answered};
use super::processes::Processes;
use crate::executor::{ProcessId, Spawner};
use crate::history::{Event, History};
use crate::world::{RecordKey, World};

const TENANT: u64 = 1;
const ACTOR: u64 = 1;

/// A request body, with the label the history shows for it.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    label: String,
    order: NewOrder,
}

impl Body {
    fn new(label: String, reference: &str, sku: &str, quantity: i64) -> Option<Self> {
        Some(Self {
            label,
            order: NewOrder {
                client_order_ref: ClientOrderRef::parse(reference).ok()?,
                sku: Sku::parse(sku).ok()?,
                quantity: Quantity::parse(quantity).ok()?,
            },
        })
    }
}

/// What the run's tasks share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) world: Arc<World>,
    pub(crate) processes: Processes,
    pub(crate) spawner: Spawner,
    pub(crate) history: History,
    executed: Mutex<BTreeSet<RecordKey>>,
    /// Each intent's key still in use, with its body, for the calm run's last look: a key
    /// given up after a definite refusal is not asked again, as its client would not.
    keys_in_use: Mutex<BTreeMap<String, Body>>,
    /// The intents a client saw succeed.
    pub(crate) succeeded: Mutex<BTreeSet<String>>,
    /// Commits at the last look at the database.
    pub(crate) commits_seen: AtomicU64,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn new(
        world: Arc<World>,
        processes: Processes,
        spawner: Spawner,
        history: History,
    ) -> Self {
        Self {
            world,
            processes,
            spawner,
            history,
            executed: Mutex::default(),
            keys_in_use: Mutex::default(),
            succeeded: Mutex::default(),
            commits_seen: AtomicU64::new(0),
        }
    }

    pub(crate) fn keys_in_use(&self) -> Vec<(String, Body)> {
        locked(&self.keys_in_use)
            .iter()
            .map(|(key, body)| (key.clone(), body.clone()))
            .collect()
    }

    pub(crate) fn succeeded_intents(&self) -> Vec<String> {
        locked(&self.succeeded).iter().cloned().collect()
    }

    fn note(&self, event: Event) {
        self.history.push(self.world.micros(), event);
    }

    /// Checks an answer against the database as it is now, in the step that gave it.
    fn check(&self, process: usize, key: &str, body: &Body, outcome: &Outcome<CreateRefusal>) {
        let record: RecordKey = (TENANT, ACTOR, "orders.create.v1".to_owned(), key.to_owned());
        let verdict = checks::answer(
            &self.world.db(),
            &Answered {
                record: &record,
                tenant: TENANT,
                input: &body.order,
                outcome,
            },
            &mut locked(&self.executed),
        );
        self.note(Event::Answered {
            process,
            key: key.to_owned(),
            body: body.label.clone(),
            answer: summary(outcome),
        });
        if let Err(violation) = verdict {
            self.note(Event::Violation(violation));
        }
    }
}

/// The answer as the history shows it: the status line and, for a stored answer, its body.
fn summary(outcome: &Outcome<CreateRefusal>) -> String {
    match outcome {
        Outcome::Executed { response, .. } | Outcome::Replayed { response, .. } => {
            let replayed = if matches!(outcome, Outcome::Replayed { .. }) {
                " (replayed)"
            } else {
                ""
            };
            format!(
                "{}{replayed} {}",
                response.status(),
                String::from_utf8_lossy(response.body())
            )
        }
        other => format!("{other:?}"),
    }
}

/// A request on its way; its answer comes through [`receive`].
pub(crate) struct Pending {
    key: String,
    answer: oneshot::Receiver<Outcome<CreateRefusal>>,
}

/// Hands one request to `process` at once; `None` when it cannot be sent.
pub(crate) fn dispatch(
    shared: &Arc<Shared>,
    process: usize,
    key: &str,
    body: &Body,
) -> Option<Pending> {
    let (Ok(tenant), Ok(actor), Ok(parsed)) = (
        TenantId::parse(TENANT),
        ActorId::parse(ACTOR),
        IdempotencyKey::parse(key),
    ) else {
        return None;
    };
    let coordinator = shared.processes.get(process)?;
    shared.note(Event::Sent {
        process,
        key: key.to_owned(),
        body: body.label.clone(),
    });
    let (reply, answer) = oneshot::channel();
    let task_shared = Arc::clone(shared);
    let (task_key, task_body) = (key.to_owned(), body.clone());
    shared.spawner.spawn(Some(ProcessId(process)), async move {
        let caller = Caller::new(tenant, actor, "orders:create");
        let outcome = coordinator
            .run(&CreateOrder, &caller, &parsed, &task_body.order)
            .await;
        task_shared.check(process, &task_key, &task_body, &outcome);
        let _ = reply.send(outcome);
    });
    Some(Pending {
        key: key.to_owned(),
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
    key: &str,
    body: &Body,
) -> Option<Outcome<CreateRefusal>> {
    receive(shared, dispatch(shared, process, key, body)).await
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

/// What a client does after a round of answers for one key.
enum Next {
    Done,
    /// Definitely not done under this key: a new key for the same intent.
    NewKey,
    /// Not known: the same key again.
    Again,
}

fn next(answers: &[Option<Outcome<CreateRefusal>>]) -> Next {
    let done = answers
        .iter()
        .flatten()
        .any(|answer| matches!(answer, Outcome::Executed { .. } | Outcome::Replayed { .. }));
    let refused = answers.iter().flatten().any(|answer| {
        matches!(
            answer,
            Outcome::Failed(_) | Outcome::Rejected(_) | Outcome::KeyReused
        )
    });
    match (done, refused) {
        (true, _) => Next::Done,
        (false, true) => Next::NewKey,
        (false, false) => Next::Again,
    }
}

/// One client's intents, one after another.
pub(crate) async fn client(shared: Arc<Shared>, client: usize, intents: usize) {
    let choice = shared.world.choice().clone();
    for intent in 0..intents {
        let sku = format!("c{client}-i{intent}");
        'keys: for generation in 0..3 {
            let key = format!("{sku}-k{generation}");
            let Some(body) = Body::new(sku.clone(), &key, &sku, 1) else {
                return;
            };
            locked(&shared.keys_in_use).insert(key.clone(), body.clone());
            for _ in 0..6 {
                let copies = 1 + usize::from(choice.chance(300)) + usize::from(choice.chance(100));
                // Copies sent at once, as a client that retried before its first answer came.
                let mut pending = Vec::with_capacity(copies + 1);
                for _ in 0..copies {
                    let process = choice.below(shared.processes.count());
                    pending.push((true, dispatch(&shared, process, &key, &body)));
                }
                if choice.chance(80)
                    && let Some(other) = Body::new(
                        format!("{key}-x"),
                        &format!("{key}-x"),
                        &format!("{key}-x"),
                        2,
                    )
                {
                    // Another body under the same key, racing the first.
                    let process = choice.below(shared.processes.count());
                    pending.push((false, dispatch(&shared, process, &key, &other)));
                }
                let mut answers = Vec::with_capacity(pending.len());
                for (mine, request) in pending {
                    let answer = receive(&shared, request).await;
                    if mine {
                        answers.push(answer);
                    }
                }
                match next(&answers) {
                    Next::Done => {
                        locked(&shared.succeeded).insert(sku.clone());
                        after_success(&shared, &key).await;
                        break 'keys;
                    }
                    Next::NewKey => {
                        locked(&shared.keys_in_use).remove(&key);
                        continue 'keys;
                    }
                    Next::Again => {}
                }
            }
            break;
        }
    }
}

/// After a success: sometimes the same `clientOrderRef` under a new key (refused, as
/// the order exists), or another body under the used key (refused as key reuse).
async fn after_success(shared: &Arc<Shared>, key: &str) {
    let choice = shared.world.choice().clone();
    let process = choice.below(shared.processes.count());
    if choice.chance(150)
        && let Some(duplicate) = Body::new(format!("{key}-dup"), key, &format!("{key}-dup"), 1)
    {
        send(shared, process, &format!("{key}-dup"), &duplicate).await;
    }
    if choice.chance(150)
        && let Some(other) = Body::new(
            format!("{key}-r"),
            &format!("{key}-r"),
            &format!("{key}-r"),
            3,
        )
    {
        send(shared, process, key, &other).await;
    }
}
