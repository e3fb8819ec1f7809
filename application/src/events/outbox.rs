//! The outbox: an event commits with the rows that made it, or not at all.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::TenantId;
use uuid::Uuid;

use crate::ports::StoreError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// Fixed for ever: the dedup key downstream.
    pub id: Uuid,
    pub event_type: &'static str,
    pub tenant: TenantId,
    pub subject: String,
    pub payload: Vec<u8>,
    pub created_at: DateTime<Utc>,
    /// For events of one thing that must reach the broker in the order they happened.
    pub order: Option<EventOrder>,
}

/// Events with one `key` are relayed in `sequence` order: none goes out while one with a
/// lower sequence is still pending (`docs/events.md#order-of-events`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventOrder {
    /// What the events are about, as `kind/id` (`orders/42`); at most 64 bytes.
    pub key: String,
    /// Rises with each event of the key; gaps are allowed.
    pub sequence: u64,
}

pub trait OutboxWriter {
    /// # Errors
    /// An event id already present is `Other`: ids are random UUIDs, so it means a bug.
    fn add_event(
        &mut self,
        event: &NewEvent,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Several events, as one multi-row statement where the store can.
    ///
    /// # Errors
    /// As [`OutboxWriter::add_event`], for any of them.
    fn add_events(
        &mut self,
        events: &[NewEvent],
    ) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        Self: Send,
    {
        async move {
            for event in events {
                self.add_event(event).await?;
            }
            Ok(())
        }
    }
}
