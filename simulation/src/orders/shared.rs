//! What a run's clients and requests share: the world, the processes, the history, and
//! what the checks need to remember; and the bodies clients send.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use application::{IdempotentOperation, Outcome};
use domain::{ClientOrderRef, NewOrder, Quantity, Sku};

use super::answers::Answered;
use super::processes::Processes;
use crate::executor::Spawner;
use crate::history::{Event, History};
use crate::locked::locked;
use crate::world::{Db, RecordKey, Strikes, World};

/// Who sends a client's requests. Clients share key strings, and the clients of one actor
/// in two tenants send byte-identical bodies: only the scope tells their requests apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Who {
    pub(crate) tenant: u64,
    pub(crate) actor: u64,
}

impl Who {
    /// Client `c`: tenants 1 and 2 by turns, actors 1, 1, 2, 2, ...
    pub(super) fn client(client: usize) -> Self {
        let client = u64::try_from(client).unwrap_or(u64::MAX - 1);
        Self {
            tenant: 1 + client % 2,
            actor: 1 + client / 2,
        }
    }
}

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

    /// A body whose label, reference and SKU are all `name`.
    pub(super) fn named(name: &str, quantity: i64) -> Option<Self> {
        Self::new(name.to_owned(), name, name, quantity)
    }
}

impl std::fmt::Display for Who {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "t{}a{}", self.tenant, self.actor)
    }
}

/// A request as its answer's check names it: where it went, whose, under which key, what.
pub(crate) struct Asked<'a> {
    pub(crate) process: usize,
    pub(crate) who: Who,
    pub(crate) key: &'a str,
    pub(crate) label: String,
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
    pub(super) keys_in_use: Mutex<BTreeMap<(Who, String), Body>>,
    /// The intents a client saw succeed: tenant and SKU.
    pub(crate) succeeded: Mutex<BTreeSet<(u64, String)>>,
    /// The orders a cancel was answered done for.
    pub(super) cancelled: Mutex<BTreeSet<u64>>,
    /// The orders a capture was accepted for.
    pub(super) captured: Mutex<BTreeSet<u64>>,
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
            cancelled: Mutex::default(),
            captured: Mutex::default(),
            commits_seen: AtomicU64::new(0),
        }
    }

    pub(crate) fn keys_in_use(&self) -> Vec<(Who, String, Body)> {
        locked(&self.keys_in_use)
            .iter()
            .map(|((who, key), body)| (*who, key.clone(), body.clone()))
            .collect()
    }

    pub(crate) fn succeeded_intents(&self) -> Vec<(u64, String)> {
        locked(&self.succeeded).iter().cloned().collect()
    }

    pub(super) fn note(&self, event: Event) {
        self.history.push(self.world.micros(), event);
    }

    /// Checks an answer of `Op` against the database as it is now, in the step that gave
    /// it: `rule` is the operation's checks, given the keys executed so far and what the
    /// run remembers.
    pub(super) fn judge<Op>(
        &self,
        asked: Asked<'_>,
        input: &Op::Input,
        lived_through: (Strikes, Strikes),
        outcome: &Outcome<Op::Refusal>,
        rule: impl FnOnce(
            &Db,
            &Answered<'_, Op::Input, Op::Refusal>,
            &mut BTreeSet<RecordKey>,
            &Self,
        ) -> Result<(), String>,
    ) where
        Op: IdempotentOperation,
        Op::Refusal: std::fmt::Debug,
    {
        let Asked {
            process,
            who,
            key,
            label,
        } = asked;
        let record: RecordKey = (who.tenant, who.actor, Op::NAME.to_owned(), key.to_owned());
        let answered = Answered {
            record: &record,
            tenant: who.tenant,
            input,
            outcome,
            lived_through,
        };
        let verdict = rule(
            &self.world.db(),
            &answered,
            &mut locked(&self.executed),
            self,
        );
        self.note(Event::Answered {
            process,
            key: format!("{who}:{key}"),
            body: label,
            answer: summary(outcome),
        });
        if let Err(violation) = verdict {
            self.note(Event::Violation(violation));
        }
    }
}

/// The answer as the history shows it: the status line and, for a stored answer, its body.
fn summary<R: std::fmt::Debug>(outcome: &Outcome<R>) -> String {
    match outcome {
        Outcome::Executed { response, .. }
        | Outcome::Replayed { response, .. }
        | Outcome::RejectedAndStored { response, .. } => {
            let replayed = match outcome {
                Outcome::Replayed { .. } => " (replayed)",
                Outcome::RejectedAndStored { .. } => " (refused, stored)",
                _ => "",
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
