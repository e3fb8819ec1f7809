//! The relay's ports; neither names NATS, so an adapter decides only how to publish.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::BoxError;
use crate::ports::StoreError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingEvent {
    pub id: Uuid,
    pub subject: String,
    pub payload: Vec<u8>,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    /// The writing request's trace, as the adapter stored it; opaque here.
    pub trace_context: Option<String>,
}

/// The outbox, for relays. Several relays may run at once, in several processes.
pub trait OutboxRelayStore: Send + Sync {
    type Claim: OutboxClaim + Send;

    /// Oldest first, skipping events another relay holds; nothing is claimed on an error. The
    /// claim ends with [`OutboxClaim::settle`], or the server's rollback if the relay dies.
    fn claim(&self, limit: usize) -> impl Future<Output = Result<Self::Claim, StoreError>> + Send;

    fn pending(&self) -> impl Future<Output = Result<PendingSummary, StoreError>> + Send;

    /// Never deletes a pending event.
    fn purge_published_batch(
        &self,
        cutoff: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PendingSummary {
    pub count: u64,
    pub oldest: Option<DateTime<Utc>>,
}

pub trait OutboxClaim {
    fn events(&self) -> &[PendingEvent];

    /// Events read but left for a later pass, each because an earlier event of its order
    /// was still pending (`docs/events.md#order-of-events`).
    fn deferred(&self) -> usize {
        0
    }

    /// Events in neither list stay pending, untouched. On an error nothing is marked, and the
    /// whole claim stays pending, to be sent again.
    fn settle(
        self,
        published: &[Uuid],
        failed: &[Uuid],
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        Self: Sized;
}

#[derive(Debug, thiserror::Error)]
#[error("publish failed")]
pub struct PublishError(#[source] pub BoxError);

/// What the broker said of an event it stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New,
    /// A copy of an event already in the stream (its id seen within the duplicate window):
    /// another publish of it went first.
    Duplicate,
}

pub trait EventPublisher: Send + Sync {
    /// All in flight together, each with its id as the dedup id, acks awaited (bounded). One
    /// result per event, in order: `Ok` only once the broker has stored it.
    fn publish(
        &self,
        events: &[PendingEvent],
    ) -> impl Future<Output = Vec<Result<Stored, PublishError>>> + Send;
}
