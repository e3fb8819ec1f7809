//! The due operations a process's worker tasks share
//! (`docs/long-running-operations.md#the-worker`): one read of the due operations feeds
//! every task, and each operation read is handed to one task only, so the tasks of one
//! process never race each other for a claim and one read serves many operations. A task
//! takes its share of what is queued as a group of one kind, which it claims, heartbeats
//! and ends together. Tasks of other processes still may race it: the claim's fence
//! decides between them, as before.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use application::ports::{DueOperation, OperationStore, StoreError};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The most operations one task works at once: its calls to the other service go out
/// together, so this bounds what one task has in flight there.
pub(crate) const GROUP_MAX: usize = 8;

#[derive(Debug, Default)]
pub(crate) struct DueFeed {
    /// The process's random shift of every read, so that processes reading the same due
    /// operations do not all claim them in the same order.
    seed: usize,
    /// The process's worker tasks: a read fetches a group for each, a task takes its share.
    tasks: usize,
    /// Read and not yet handed out; one task reads at a time, the others wait for it.
    queued: tokio::sync::Mutex<VecDeque<DueOperation>>,
    /// Handed to a task and not yet given back: a read meanwhile may find them still due
    /// (the task has not claimed yet, or gave its lease back) and must not hand them again.
    handed: Mutex<HashSet<Uuid>>,
}

/// Operations of one kind a task holds; dropping them gives them back to the feed.
#[derive(Debug)]
pub(crate) struct Handed<'a> {
    feed: &'a DueFeed,
    pub(crate) group: Vec<DueOperation>,
}

impl Drop for Handed<'_> {
    fn drop(&mut self) {
        let mut handed = self.feed.handed();
        for operation in &self.group {
            handed.remove(&operation.id);
        }
    }
}

impl DueFeed {
    pub(crate) fn new(seed: usize, tasks: usize) -> Self {
        Self {
            seed,
            tasks: tasks.max(1),
            ..Self::default()
        }
    }

    fn handed(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.handed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next group for a task: its share of what is left from the last read (at least
    /// one, at most [`GROUP_MAX`], all of the first one's kind), else of a new read (`read`
    /// is told of it); `None` when nothing is due that no other task holds.
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
            let mut due = store.due(kinds, self.tasks * GROUP_MAX, now).await?;
            read();
            if !due.is_empty() {
                let len = due.len();
                due.rotate_left(self.seed % len);
            }
            let handed = self.handed();
            queued.extend(due.into_iter().filter(|op| !handed.contains(&op.id)));
        }
        let share = queued.len().div_ceil(self.tasks).clamp(1, GROUP_MAX);
        let Some(first) = queued.pop_front() else {
            return Ok(None);
        };
        let kind = first.kind.clone();
        let mut group = vec![first];
        while group.len() < share
            && let Some(at) = queued.iter().position(|op| op.kind == kind)
            && let Some(next) = queued.remove(at)
        {
            group.push(next);
        }
        self.handed().extend(group.iter().map(|op| op.id));
        Ok(Some(Handed { feed: self, group }))
    }
}
