//! The relay's ports: the outbox as the relay sees it, and the broker.
//!
//! Neither names NATS: the application decides what is published and when an event
//! counts as published; an adapter decides how.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::BoxError;
use crate::ports::StoreError;

/// A pending event, as claimed for publishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingEvent {
    /// The event id: the broker's dedup id, and the consumers'.
    pub id: Uuid,
    /// Where it goes.
    pub subject: String,
    /// The event document.
    pub payload: Vec<u8>,
    /// When it was written (the lag is measured from here).
    pub created_at: DateTime<Utc>,
    /// Failed publishes so far.
    pub attempts: u32,
}

/// The outbox, for relays. Several relays may run at once, in several processes.
pub trait OutboxRelayStore: Send + Sync {
    /// An open claim on a batch of events.
    type Claim: OutboxClaim + Send;

    /// Claims up to `limit` pending events, oldest first, skipping any another relay holds
    /// (MySQL: a short transaction with `FOR UPDATE SKIP LOCKED`, ended by
    /// [`OutboxClaim::settle`] or, when the relay dies, by the server's rollback).
    ///
    /// # Errors
    /// Any [`StoreError`]; nothing is claimed then.
    fn claim(&self, limit: usize) -> impl Future<Output = Result<Self::Claim, StoreError>> + Send;

    /// How many events wait, and when the oldest of them was written.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn pending(&self) -> impl Future<Output = Result<PendingSummary, StoreError>> + Send;

    /// Deletes at most `limit` events published before `cutoff`; never a pending one.
    /// Returns how many were deleted.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn purge_published_batch(
        &self,
        cutoff: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

/// What waits in the outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PendingSummary {
    /// Events not yet acknowledged by the broker.
    pub count: u64,
    /// When the oldest of them was written; `None` when none waits.
    pub oldest: Option<DateTime<Utc>>,
}

/// A batch of claimed events.
pub trait OutboxClaim {
    /// The claimed events, oldest first.
    fn events(&self) -> &[PendingEvent];

    /// Marks `published` as published at `now`, counts one more failed attempt on each of
    /// `failed`, and ends the claim. Events in neither list stay pending, untouched.
    ///
    /// # Errors
    /// Any [`StoreError`]: then nothing is marked, and every event of the claim stays
    /// pending (a later relay sends it again; the broker's dedup and the consumers' inbox
    /// absorb the copy).
    fn settle(
        self,
        published: &[Uuid],
        failed: &[Uuid],
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        Self: Sized;
}

/// Why one event was not acknowledged.
#[derive(Debug, thiserror::Error)]
#[error("publish failed")]
pub struct PublishError(#[source] pub BoxError);

/// The broker.
pub trait EventPublisher: Send + Sync {
    /// Publishes every event with its id as the broker's dedup id, all in flight together,
    /// and waits for each acknowledgement (bounded). One result per event, in order: `Ok`
    /// only once the broker has stored it.
    fn publish(
        &self,
        events: &[PendingEvent],
    ) -> impl Future<Output = Vec<Result<(), PublishError>>> + Send;
}
