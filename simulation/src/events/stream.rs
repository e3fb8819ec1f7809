//! The stream, as JetStream keeps it: a publish with the event's id as its message id is
//! stored once within the duplicate window (a copy is acknowledged as a duplicate), an ack
//! may be lost either way, and a durable consumer delivers every message at least once:
//! a message not acknowledged may come again at any time, to any consumer.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use application::events::{EventPublisher, PendingEvent, PublishError, Stored};
use uuid::Uuid;

use crate::executor::interleave;
use crate::locked::locked;
use crate::world::World;

/// Simulated microseconds a message id is remembered for (JetStream's duplicate window).
const DUPLICATE_WINDOW: i64 = 20_000;

#[derive(Debug, thiserror::Error)]
#[error("simulated publish failure")]
struct SimulatedPublishFailure;

#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub(crate) id: Uuid,
    pub(crate) payload: Vec<u8>,
}

#[derive(Debug, Default)]
pub(crate) struct Messages {
    pub(crate) messages: Vec<Message>,
    /// Message id, and when it was stored.
    seen: BTreeMap<Uuid, i64>,
    /// The durable consumer: the next message never delivered, and those delivered but
    /// not acknowledged.
    next: usize,
    unacked: BTreeSet<usize>,
}

#[derive(Debug, Clone)]
pub(crate) struct SimStream {
    world: Arc<World>,
    messages: Arc<Mutex<Messages>>,
}

impl SimStream {
    pub(crate) fn new(world: &Arc<World>) -> Self {
        Self {
            world: Arc::clone(world),
            messages: Arc::default(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Messages> {
        locked(&self.messages)
    }

    /// A delivery, picked by the seed: the next new message, or one delivered before and
    /// not acknowledged (its ack wait ran out). `None` when there is neither.
    pub(crate) fn deliver(&self) -> Option<(usize, Vec<u8>)> {
        let mut messages = self.lock();
        let fresh = (messages.next < messages.messages.len()).then_some(messages.next);
        let candidates = fresh.into_iter().chain(messages.unacked.iter().copied());
        let index = self.world.choice().pick_from(candidates)?;
        if Some(index) == fresh {
            messages.next += 1;
        }
        messages.unacked.insert(index);
        let payload = messages.messages.get(index)?.payload.clone();
        Some((index, payload))
    }

    pub(crate) fn ack(&self, index: usize) {
        self.lock().unacked.remove(&index);
    }

    /// Every message delivered and acknowledged.
    pub(crate) fn drained(&self) -> bool {
        let messages = self.lock();
        messages.next == messages.messages.len() && messages.unacked.is_empty()
    }
}

impl EventPublisher for SimStream {
    async fn publish(&self, events: &[PendingEvent]) -> Vec<Result<Stored, PublishError>> {
        interleave().await;
        let failure = || Err(PublishError(Box::new(SimulatedPublishFailure)));
        let now = self.world.micros();
        let mut results = Vec::with_capacity(events.len());
        for event in events {
            if self.world.fails(|f| f.remote_fails) {
                results.push(failure());
                continue;
            }
            let stored = {
                let mut messages = self.lock();
                let recent = messages
                    .seen
                    .get(&event.id)
                    .is_some_and(|at| now - at < DUPLICATE_WINDOW);
                if recent {
                    Stored::Duplicate
                } else {
                    messages.seen.insert(event.id, now);
                    messages.messages.push(Message {
                        id: event.id,
                        payload: event.payload.clone(),
                    });
                    Stored::New
                }
            };
            results.push(if self.world.fails(|f| f.remote_answer_lost) {
                failure()
            } else {
                Ok(stored)
            });
        }
        results
    }
}
