//! Natural batching, no timer (`docs/storage.md#batched-operations`): with nothing in the
//! database a request goes at once, alone; while a batch is, requests wait, and the slot
//! that frees next takes everything waiting (up to a bound) as its next batch, or a further
//! slot takes them once as many wait as the recent batches held. An idle process therefore
//! runs batches of one and adds no wait.
//!
//! Runtime-free: a batch is driven by one of its members' own futures, and the slot passes
//! to a waiting member over a one-shot channel. A driver dropped mid-batch (its client gone)
//! drops its members' channels: each of them runs alone, as it would have without batching.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_channel::oneshot;

/// How large a batch may be, and how many run at once, per operation and process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSettings {
    pub max_members: usize,
    pub max_in_flight: usize,
}

impl Default for BatchSettings {
    /// Measured on 2 cores at c=32 (`docs/performance.md#batched-creates-2026-12-05`).
    fn default() -> Self {
        Self {
            max_members: 16,
            max_in_flight: 2,
        }
    }
}

/// One member of a batch: what it brings, and where its answer goes. The driver's own
/// entry has no channel: it gets its answer from the batch directly.
pub(crate) struct Entry<M, A> {
    pub(crate) member: M,
    pub(crate) reply: Option<oneshot::Sender<Turn<M, A>>>,
}

/// What a waiting member hears.
pub(crate) enum Turn<M, A> {
    Answer(A),
    /// Drive this batch (your own entry first), holding the slot.
    Drive(Slot<M, A>, Vec<Entry<M, A>>),
}

/// What a member is told on joining.
pub(crate) enum Joined<M, A> {
    Drive(Slot<M, A>, Vec<Entry<M, A>>),
    /// A closed channel means nothing of it ran in a batch: run alone.
    Wait(oneshot::Receiver<Turn<M, A>>),
}

struct State<M, A> {
    waiting: VecDeque<(M, oneshot::Sender<Turn<M, A>>)>,
    in_flight: usize,
    /// The recent batches' size, averaged: how many make a further batch worth a slot.
    typical: f64,
}

/// The batches of one operation in one process.
pub(crate) struct BatchQueue<M, A> {
    settings: BatchSettings,
    state: Mutex<State<M, A>>,
}

impl<M, A> BatchQueue<M, A> {
    pub(crate) fn new(settings: BatchSettings) -> Self {
        Self {
            settings: BatchSettings {
                max_members: settings.max_members.max(1),
                max_in_flight: settings.max_in_flight.max(1),
            },
            state: Mutex::new(State {
                waiting: VecDeque::new(),
                in_flight: 0,
                typical: 1.0,
            }),
        }
    }

    /// Members waiting for a slot now (for tests that build a batch of a known size).
    pub(crate) fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    /// With no batch in the database, a request goes at once, alone. While one is, a further
    /// batch starts once as many wait as the recent batches held: under load the requests
    /// that arrive between two batches' answers gather instead of the first taking the free
    /// slot alone (the database would see a full batch and a lone request by turns), while a
    /// lightly loaded process, whose batches are of one, still sends a request past a slow
    /// transaction at once. No timer: the bound moves only as batches end.
    pub(crate) fn join(self: &Arc<Self>, member: M) -> Joined<M, A> {
        let mut state = self.lock();
        let idle = state.in_flight == 0;
        let enough = state.waiting.len() + 1 >= self.further_batch(&state);
        if idle || (enough && state.in_flight < self.settings.max_in_flight) {
            state.in_flight += 1;
            let mut batch = vec![Entry {
                member,
                reply: None,
            }];
            self.fill(&mut state, &mut batch);
            return Joined::Drive(self.slot(batch.len()), batch);
        }
        let (sender, receiver) = oneshot::channel();
        state.waiting.push_back((member, sender));
        Joined::Wait(receiver)
    }

    /// How many waiting requests take a free slot while a batch is in the database.
    fn further_batch(&self, state: &State<M, A>) -> usize {
        // A float of at most `max_members`, rounded: the cast cannot wrap.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let typical = state.typical.round() as usize;
        typical.clamp(1, self.settings.max_members)
    }

    fn slot(self: &Arc<Self>, members: usize) -> Slot<M, A> {
        Slot {
            queue: Some(self.clone()),
            members,
        }
    }

    /// A slot came free: the first waiting member still listening drives the next batch,
    /// with up to the bound of those behind it; with none waiting, the slot is given back.
    fn release(self: &Arc<Self>, members: usize) {
        let mut state = self.lock();
        #[allow(clippy::cast_precision_loss)] // at most `max_members`
        let members = members as f64;
        state.typical = 0.75 * state.typical + 0.25 * members;
        while let Some((member, sender)) = state.waiting.pop_front() {
            if sender.is_canceled() {
                // Its request is gone: nothing of it was written, and no one waits for it.
                continue;
            }
            let mut batch = vec![Entry {
                member,
                reply: None,
            }];
            self.fill(&mut state, &mut batch);
            let turn = Turn::Drive(self.slot(batch.len()), batch);
            match sender.send(turn) {
                Ok(()) => return,
                // Gone since the check: its batch goes back in front, for the next one.
                Err(Turn::Drive(mut slot, batch)) => {
                    slot.queue = None;
                    for entry in batch.into_iter().skip(1).rev() {
                        if let Some(reply) = entry.reply {
                            state.waiting.push_front((entry.member, reply));
                        }
                    }
                }
                Err(Turn::Answer(_)) => {}
            }
        }
        state.in_flight -= 1;
    }

    /// Adds the waiting members still listening to `batch`, oldest first, up to the bound.
    fn fill(&self, state: &mut State<M, A>, batch: &mut Vec<Entry<M, A>>) {
        while batch.len() < self.settings.max_members {
            let Some((member, reply)) = state.waiting.pop_front() else {
                break;
            };
            if !reply.is_canceled() {
                batch.push(Entry {
                    member,
                    reply: Some(reply),
                });
            }
        }
    }

    /// Answers every waiting member `answer` at once: the database could not be reached, and
    /// each would only meet the same wait again.
    fn answer_waiting(&self, answer: impl Fn() -> A) {
        let waiting = std::mem::take(&mut self.lock().waiting);
        for (_, sender) in waiting {
            let _ = sender.send(Turn::Answer(answer()));
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<M, A>> {
        // Every change is a push, a pop or a count: consistent across a panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A batch's place among the few in flight; dropped, it passes to the next waiting member.
pub(crate) struct Slot<M, A> {
    queue: Option<Arc<BatchQueue<M, A>>>,
    /// The batch's size when it formed.
    members: usize,
}

impl<M, A> Slot<M, A> {
    /// See [`BatchQueue::answer_waiting`]; the slot passes on (to no one) when dropped.
    pub(crate) fn answer_waiting(&self, answer: impl Fn() -> A) {
        if let Some(queue) = &self.queue {
            queue.answer_waiting(answer);
        }
    }
}

impl<M, A> Drop for Slot<M, A> {
    fn drop(&mut self) {
        if let Some(queue) = self.queue.take() {
            queue.release(self.members);
        }
    }
}

#[cfg(test)]
mod tests;
