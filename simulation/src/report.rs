//! What a run reports: its seed and size, what the seed drew, and its history.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use application::{BatchObserver, RerunCause};

use crate::history::History;
use crate::locked::locked;

/// A run's size: its processes, and for creates its clients and the intents of each;
/// for events the orders written (`clients`) and the relay's batch (`intents`); for
/// captures the operations accepted (`clients`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub processes: usize,
    pub clients: usize,
    pub intents: usize,
}

#[derive(Debug)]
pub struct Report {
    pub seed: u64,
    /// Which scenario the seed ran.
    pub scenario: &'static str,
    pub scale: Scale,
    pub steps: u64,
    /// The faults' rates and what the processes keep in memory, as drawn.
    pub(crate) detail: String,
    pub(crate) history: History,
    /// What the processes' batches came to.
    pub batches: Batches,
}

/// The batches of a run, by operation: how many went to the database, and how many were
/// rolled back to run their members alone, by cause (`RerunCause::label`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batches {
    pub ran: BTreeMap<&'static str, u64>,
    pub rerun: BTreeMap<(&'static str, &'static str), u64>,
}

impl Batches {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Self) {
        for (operation, n) in &other.ran {
            *self.ran.entry(operation).or_default() += n;
        }
        for (key, n) in &other.rerun {
            *self.rerun.entry(*key).or_default() += n;
        }
    }
}

/// Counts a run's batches as the coordinator reports them.
#[derive(Debug, Clone, Default)]
pub(crate) struct BatchTally(pub(crate) Arc<Mutex<Batches>>);

impl BatchTally {
    pub(crate) fn counted(&self) -> Batches {
        locked(&self.0).clone()
    }
}

impl BatchObserver for BatchTally {
    fn batch_ran(&self, operation: &'static str, _members: usize) {
        *locked(&self.0).ran.entry(operation).or_default() += 1;
    }

    fn batch_rerun(&self, operation: &'static str, cause: RerunCause, _members: usize) {
        *locked(&self.0)
            .rerun
            .entry((operation, cause.label()))
            .or_default() += 1;
    }
}

impl Report {
    /// Every invariant broken in the run; empty when it held.
    #[must_use]
    pub fn violations(&self) -> Vec<String> {
        self.history.violations()
    }

    #[must_use]
    pub fn passed(&self) -> bool {
        self.violations().is_empty()
    }

    /// Whether the run was stopped at the step limit (`driver::STALLED`), a failure of its
    /// own kind: a shorter history of another seed's size must not stand for a broken
    /// invariant, nor an invariant for a stall.
    #[must_use]
    pub fn stalled(&self) -> bool {
        self.violations()
            .iter()
            .any(|violation| violation.starts_with(crate::driver::STALLED))
    }

    /// The history's length: the measure of a shorter explanation.
    #[must_use]
    pub fn events(&self) -> usize {
        self.history.len()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "seed {}, {} ({} processes, {} clients, {} intents each; {} steps)",
            self.seed,
            self.scenario,
            self.scale.processes,
            self.scale.clients,
            self.scale.intents,
            self.steps
        )?;
        writeln!(f, "{}", self.detail)?;
        for violation in self.violations() {
            writeln!(f, "violated: {violation}")?;
        }
        write!(f, "{}", self.history)
    }
}
