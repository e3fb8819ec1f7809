//! The outbox, written inside the business step's transaction: an event commits with the
//! rows that made it, or not at all.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::TenantId;
use uuid::Uuid;

use crate::ports::StoreError;

/// An event to publish once its transaction has committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// Made when the event is made and fixed for ever: the dedup key downstream.
    pub id: Uuid,
    /// The versioned event type, for example `orders.created.v1`.
    pub event_type: &'static str,
    /// The tenant the event belongs to.
    pub tenant: TenantId,
    /// Where the relay publishes it.
    pub subject: String,
    /// The event document, JSON.
    pub payload: Vec<u8>,
    /// When the event happened (for an order, its `createdAt`).
    pub created_at: DateTime<Utc>,
}

/// Adds events to the outbox inside an open transaction (implemented by the adapter's
/// transaction, like the business repositories).
pub trait OutboxWriter {
    /// Adds one pending event.
    ///
    /// # Errors
    /// `LockWaitTimeout`, `Deadlock`, `ConnectionLost`, `Timeout` or `Other`, as for any
    /// statement of the transaction; an event id already present is `Other` (ids are
    /// random UUIDs, so it means a bug).
    fn add_event(
        &mut self,
        event: &NewEvent,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
