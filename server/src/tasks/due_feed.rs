//! The due operations a process's worker tasks share
//! (`docs/long-running-operations.md#the-worker`): one read of the due operations feeds
//! every task, and each operation read is handed to one task only, so the tasks of one
//! process never race each other for a claim and one read serves many operations. Tasks
//! of other processes still may: the claim's fence decides between them, as before.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use application::ports::{DueOperation, OperationStore, StoreError};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Operations read at once: a task takes one, the rest wait for the next free tasks.
pub(crate) const DUE_BATCH: usize = 16;

#[derive(Debug, Default)]
pub(crate) struct DueFeed {
    /// The process's random shift of every read, so that processes reading the same due
    /// operations do not all claim them in the same order.
    seed: usize,
    /// Read and not yet handed out; one task reads at a time, the others wait for it.
    queued: tokio::sync::Mutex<VecDeque<DueOperation>>,
    /// Handed to a task and not yet given back: a read meanwhile may find them still due
    /// (the task has not claimed yet, or gave its lease back) and must not hand them again.
    handed: Mutex<HashSet<Uuid>>,
}

/// An operation a task holds; dropping it gives it back to the feed.
#[derive(Debug)]
pub(crate) struct Handed<'a> {
    feed: &'a DueFeed,
    pub(crate) operation: DueOperation,
}

impl Drop for Handed<'_> {
    fn drop(&mut self) {
        self.feed.handed().remove(&self.operation.id);
    }
}

impl DueFeed {
    pub(crate) fn new(seed: usize) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }

    fn handed(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.handed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next operation for a task: one left from the last read, else one of a new read
    /// (`read` is told of it); `None` when nothing is due that no other task holds.
    ///
    /// # Errors
    /// The read's.
    pub(crate) async fn next<S: OperationStore>(
        &self,
        store: &S,
        kinds: &[&'static str],
        now: DateTime<Utc>,
        read: impl FnOnce(),
    ) -> Result<Option<Handed<'_>>, StoreError> {
        let mut queued = self.queued.lock().await;
        if queued.is_empty() {
            let mut due = store.due(kinds, DUE_BATCH, now).await?;
            read();
            if !due.is_empty() {
                let len = due.len();
                due.rotate_left(self.seed % len);
            }
            let handed = self.handed();
            queued.extend(due.into_iter().filter(|op| !handed.contains(&op.id)));
        }
        let Some(operation) = queued.pop_front() else {
            return Ok(None);
        };
        self.handed().insert(operation.id);
        Ok(Some(Handed {
            feed: self,
            operation,
        }))
    }
}
