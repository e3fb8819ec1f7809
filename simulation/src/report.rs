//! What a run reports: its seed and size, what the seed drew, and its history.

use std::fmt;

use crate::history::History;

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
