//! The outbox as the relays see it: committed events oldest first, a claim that skips the
//! rows another relay holds (`FOR UPDATE SKIP LOCKED`), the production order rule, and a
//! settle that marks what the broker acknowledged.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use application::events::{
    OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, publishable_in_order,
};
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::executor::interleave;
use crate::locked::locked;
use crate::world::{World, lost};

#[derive(Debug, Clone)]
pub(crate) struct OutboxRow {
    pub(crate) event: PendingEvent,
    /// The order it is about, and its place among that order's events.
    pub(crate) order: String,
    pub(crate) sequence: i64,
    pub(crate) published: bool,
    held_by: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Rows {
    /// By the outbox's auto-increment id: the relay's "oldest first".
    pub(crate) rows: BTreeMap<u64, OutboxRow>,
    next_claim: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct SimOutbox {
    world: Arc<World>,
    rows: Arc<Mutex<Rows>>,
}

impl SimOutbox {
    pub(crate) fn new(world: &Arc<World>) -> Self {
        Self {
            world: Arc::clone(world),
            rows: Arc::default(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Rows> {
        locked(&self.rows)
    }

    /// An event committed by an operation's transaction, under the id its insert took.
    pub(crate) fn commit(&self, id: u64, event: PendingEvent, order: String, sequence: i64) {
        self.lock().rows.insert(
            id,
            OutboxRow {
                event,
                order,
                sequence,
                published: false,
                held_by: None,
            },
        );
    }

    fn release(&self, claim: u64) {
        for row in self.lock().rows.values_mut() {
            if row.held_by == Some(claim) {
                row.held_by = None;
            }
        }
    }
}

impl OutboxRelayStore for SimOutbox {
    type Claim = SimClaim;

    async fn claim(&self, limit: usize) -> Result<SimClaim, StoreError> {
        interleave().await;
        if self.world.fails(|f| f.connection_lost) {
            return Err(lost());
        }
        let mut rows = self.lock();
        rows.next_claim += 1;
        let claim = rows.next_claim;
        let read: Vec<(u64, OutboxRow)> = rows
            .rows
            .iter()
            .filter(|(_, row)| !row.published && row.held_by.is_none())
            .take(limit)
            .map(|(id, row)| (*id, row.clone()))
            .collect();
        let keys: BTreeSet<&str> = read.iter().map(|(_, row)| row.order.as_str()).collect();
        let pending: Vec<(String, i64)> = rows
            .rows
            .values()
            .filter(|row| !row.published && keys.contains(row.order.as_str()))
            .map(|row| (row.order.clone(), row.sequence))
            .collect();
        let held: Vec<u64> = read.iter().map(|(id, _)| *id).collect();
        let (kept, deferred) =
            publishable_in_order(read, |(_, row)| Some((&row.order, row.sequence)), pending);
        for id in held {
            if let Some(row) = rows.rows.get_mut(&id) {
                row.held_by = Some(claim);
            }
        }
        Ok(SimClaim {
            outbox: self.clone(),
            claim,
            events: kept.into_iter().map(|(_, row)| row.event).collect(),
            deferred,
            settled: false,
        })
    }

    async fn pending(&self) -> Result<PendingSummary, StoreError> {
        let rows = self.lock();
        let pending: Vec<&OutboxRow> = rows.rows.values().filter(|row| !row.published).collect();
        Ok(PendingSummary {
            count: pending.len() as u64,
            oldest: pending.iter().map(|row| row.event.created_at).min(),
        })
    }

    async fn purge_published_batch(
        &self,
        _cutoff: DateTime<Utc>,
        _limit: u32,
    ) -> Result<u64, StoreError> {
        Ok(0)
    }
}

/// The claim's transaction: its rows held until it settles, or until it is dropped (the
/// relay died and the server rolled the transaction back).
#[derive(Debug)]
pub(crate) struct SimClaim {
    outbox: SimOutbox,
    claim: u64,
    events: Vec<PendingEvent>,
    deferred: usize,
    settled: bool,
}

impl Drop for SimClaim {
    fn drop(&mut self) {
        if !self.settled {
            self.outbox.release(self.claim);
        }
    }
}

impl OutboxClaim for SimClaim {
    fn events(&self) -> &[PendingEvent] {
        &self.events
    }

    fn deferred(&self) -> usize {
        self.deferred
    }

    async fn settle(
        mut self,
        published: &[Uuid],
        failed: &[Uuid],
        _now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        interleave().await;
        self.settled = true;
        if self.outbox.world.fails(|f| f.connection_lost) {
            self.outbox.release(self.claim);
            return Err(lost());
        }
        let mut rows = self.outbox.lock();
        for row in rows.rows.values_mut() {
            if row.held_by == Some(self.claim) {
                row.held_by = None;
                if published.contains(&row.event.id) {
                    row.published = true;
                } else if failed.contains(&row.event.id) {
                    row.event.attempts += 1;
                }
            }
        }
        Ok(())
    }
}
