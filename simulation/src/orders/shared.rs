//! What a run's clients and requests share: the world, the processes, the history, and
//! what the checks need to remember; and the bodies clients send.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use application::{CreateRefusal, Outcome};
use domain::{ClientOrderRef, NewOrder, Quantity, Sku};

use super::checks::{self, Answered};
use super::processes::Processes;
use crate::executor::Spawner;
use crate::history::{Event, History};
use crate::locked::locked;
use crate::world::{RecordKey, World};

pub(super) const TENANT: u64 = 1;
pub(super) const ACTOR: u64 = 1;

/// A request body, with the label the history shows for it.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub(super) label: String,
    pub(super) order: NewOrder,
}

impl Body {
    pub(super) fn new(label: String, reference: &str, sku: &str, quantity: i64) -> Option<Self> {
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
    pub(super) keys_in_use: Mutex<BTreeMap<String, Body>>,
    /// The intents a client saw succeed.
    pub(crate) succeeded: Mutex<BTreeSet<String>>,
    /// Commits at the last look at the database.
    pub(crate) commits_seen: AtomicU64,
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

    pub(super) fn note(&self, event: Event) {
        self.history.push(self.world.micros(), event);
    }

    /// Checks an answer against the database as it is now, in the step that gave it.
    pub(super) fn check(
        &self,
        process: usize,
        key: &str,
        body: &Body,
        outcome: &Outcome<CreateRefusal>,
    ) {
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
