//! What a run did, in order: each request sent and how it was answered, each crash. A
//! failing seed prints it, so the run can be read without running it again.

use crate::locked::locked;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    Sent {
        process: usize,
        key: String,
        body: String,
    },
    Answered {
        process: usize,
        key: String,
        body: String,
        answer: String,
    },
    NoResponse {
        key: String,
    },
    Crashed {
        process: usize,
    },
    /// Anything else a scenario records.
    Note(String),
    Violation(String),
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sent { process, key, body } => {
                write!(f, "p{process} <- {key} {body}")
            }
            Self::Answered {
                process,
                key,
                body,
                answer,
            } => write!(f, "p{process} -> {key} {body}: {answer}"),
            Self::NoResponse { key } => write!(f, "client: no response for {key}"),
            Self::Crashed { process } => write!(f, "p{process} crashed"),
            Self::Note(what) => f.write_str(what),
            Self::Violation(what) => write!(f, "VIOLATION: {what}"),
        }
    }
}

/// Shared by the run's tasks; `at` is the run's clock in microseconds.
#[derive(Debug, Clone, Default)]
pub(crate) struct History(Arc<Mutex<Vec<(i64, Event)>>>);

impl History {
    fn lock(&self) -> MutexGuard<'_, Vec<(i64, Event)>> {
        locked(&self.0)
    }

    pub(crate) fn push(&self, at: i64, event: Event) {
        self.lock().push((at, event));
    }

    pub(crate) fn violations(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter_map(|(_, event)| match event {
                Event::Violation(what) => Some(what.clone()),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, event) in self.lock().iter() {
            writeln!(f, "{:>10}µs  {event}", at)?;
        }
        Ok(())
    }
}
