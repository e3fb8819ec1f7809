//! The tables the design relies on, with the semantics it relies on: a unique index
//! decides (an uncommitted insert of the same key makes the other writer wait, then fail
//! or go on), a wait that would close a cycle is a deadlock, and a transaction's writes
//! become visible all at once, at its commit.

use std::collections::BTreeMap;

use application::events::ShipmentState;
use chrono::{DateTime, Utc};
use domain::{
    AttemptError, Completion, Fingerprint, Generation, OperationState, OrderId, OwnerId,
    RecordState, TenantId,
};
use uuid::Uuid;

/// `uq_api_idempotency_scope_key`: tenant, actor, operation, key.
pub(crate) type RecordKey = (u64, u64, String, String);

/// What a unique index holds for an uncommitted insert.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LockKey {
    Record(RecordKey),
    /// `(tenant_id, client_order_ref)` of `orders`.
    OrderRef(u64, String),
    /// The inbox's `(consumer, event_id)`.
    Delivery(&'static str, Uuid),
    /// A shipment's row, by its order: its unique key, and its row lock for an update.
    Shipment(u64),
    /// A leased operation's row lock.
    Operation(Uuid),
    /// An order's row lock, taken to raise its revision.
    Order(u64),
    /// The one pending or succeeded capture an order may have (a unique index).
    ActiveCapture(u64),
    /// An order's payment row, which a refund's reservation updates.
    Payment(u64),
}

/// A leased operation as its table keeps it.
#[derive(Debug, Clone)]
pub(crate) struct OperationRow {
    pub(crate) kind: &'static str,
    pub(crate) tenant: TenantId,
    pub(crate) order: OrderId,
    pub(crate) input: Vec<u8>,
    pub(crate) downstream_key: String,
    pub(crate) accepted_at: DateTime<Utc>,
    pub(crate) state: OperationState,
    pub(crate) attempts: u32,
    pub(crate) next_attempt_at: DateTime<Utc>,
    pub(crate) last_error: Option<AttemptError>,
    pub(crate) generation: Generation,
    pub(crate) holder: Option<(OwnerId, DateTime<Utc>)>,
    /// Who won the claim of the row's current generation.
    pub(crate) claimed_by: Option<OwnerId>,
    /// Each fenced write that landed.
    pub(crate) landed: Vec<Landed>,
}

/// A fenced write that landed: the generation it was made under and the row's, and
/// whether its writer is the one that claimed the row's generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Landed {
    pub(crate) under: Generation,
    pub(crate) on: Generation,
    pub(crate) by_claimer: bool,
}

impl OperationRow {
    /// Logs a write of `lease`'s holder landing on the row as it is now.
    pub(crate) fn land(&mut self, lease: &domain::Lease) {
        self.landed.push(Landed {
            under: lease.generation,
            on: self.generation,
            by_claimer: self.claimed_by.as_ref() == Some(&lease.owner),
        });
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RecordRow {
    pub(crate) id: u64,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) state: RecordState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OrderRow {
    pub(crate) id: u64,
    pub(crate) tenant: u64,
    pub(crate) client_order_ref: String,
    pub(crate) sku: String,
    pub(crate) quantity: u8,
    pub(crate) created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventRow {
    pub(crate) event_type: &'static str,
    /// What the event is about (`orders/42`) and its place among that thing's events.
    pub(crate) about: Option<(String, u64)>,
}

/// A shipment as the shipments consumer keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShipmentRow {
    pub(crate) state: ShipmentState,
    pub(crate) sequence: u64,
}

/// One transaction's uncommitted writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Writes {
    pub(crate) records: BTreeMap<RecordKey, RecordRow>,
    pub(crate) orders: Vec<OrderRow>,
    pub(crate) events: Vec<EventRow>,
    pub(crate) deliveries: Vec<(&'static str, Uuid)>,
    pub(crate) applications: Vec<(&'static str, Uuid)>,
    pub(crate) shipments: BTreeMap<u64, ShipmentRow>,
    pub(crate) operations: BTreeMap<Uuid, OperationRow>,
    /// Each payment row: its operation and the provider's charge id.
    pub(crate) payments: Vec<(Uuid, String)>,
    pub(crate) revisions: BTreeMap<u64, u64>,
    /// Orders marked cancelled, with when.
    pub(crate) cancellations: BTreeMap<u64, DateTime<Utc>>,
    /// What each order's capture has reserved for refunds, in all.
    pub(crate) refunded: BTreeMap<u64, u32>,
}

#[derive(Debug, Default)]
pub(crate) struct TxState {
    pub(crate) writes: Writes,
    pub(crate) savepoint: Option<Writes>,
    pub(crate) waiting_for: Option<u64>,
}

/// Why a unique-index insert cannot go on now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    Taken,
    /// Held by an uncommitted insert of this transaction.
    WaitOn(u64),
    Deadlock,
    Free,
}

#[derive(Debug, Default)]
pub(crate) struct Db {
    next_id: u64,
    next_tx: u64,
    pub(crate) records: BTreeMap<RecordKey, RecordRow>,
    pub(crate) orders: Vec<OrderRow>,
    pub(crate) events: Vec<EventRow>,
    /// The inbox: each delivery a consumer's committed transaction recorded.
    pub(crate) deliveries: Vec<(&'static str, Uuid)>,
    /// Each time a consumer's committed transaction applied an event, every one counted:
    /// more than one for an event is a second application, whatever the inbox recorded.
    pub(crate) applications: Vec<(&'static str, Uuid)>,
    pub(crate) shipments: BTreeMap<u64, ShipmentRow>,
    pub(crate) operations: BTreeMap<Uuid, OperationRow>,
    pub(crate) payments: Vec<(Uuid, String)>,
    pub(crate) revisions: BTreeMap<u64, u64>,
    /// Each cancelled order, with when it was cancelled.
    pub(crate) cancellations: BTreeMap<u64, DateTime<Utc>>,
    /// What each order's capture has reserved for refunds, in all.
    pub(crate) refunded: BTreeMap<u64, u32>,
    locks: BTreeMap<LockKey, u64>,
    pub(crate) txs: BTreeMap<u64, TxState>,
    pub(crate) commits: u64,
}

impl Db {
    pub(crate) fn begin(&mut self) -> u64 {
        self.next_tx += 1;
        self.txs.insert(self.next_tx, TxState::default());
        self.next_tx
    }

    /// Auto-increment: ids are never reused, rolled back or not.
    pub(crate) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn committed(&self, key: &LockKey) -> bool {
        match key {
            LockKey::Record(record) => self.records.contains_key(record),
            LockKey::OrderRef(tenant, reference) => self
                .orders
                .iter()
                .any(|o| o.tenant == *tenant && &o.client_order_ref == reference),
            LockKey::Delivery(consumer, event) => self.deliveries.contains(&(*consumer, *event)),
            LockKey::Shipment(order) => self.shipments.contains_key(order),
            LockKey::Operation(id) => self.operations.contains_key(id),
            LockKey::Order(order) => self.revisions.contains_key(order),
            // Only ever a row lock, never a unique key.
            LockKey::Payment(_) => false,
            LockKey::ActiveCapture(order) => self
                .operations
                .values()
                .any(|row| row.order.get() == *order && row.state.blocks_another_capture()),
        }
    }

    /// Whether `tx` may insert `key` now; on [`Claim::Free`] the key is held for it.
    pub(crate) fn claim(&mut self, tx: u64, key: LockKey) -> Claim {
        if self.committed(&key) {
            return Claim::Taken;
        }
        self.lock(tx, key)
    }

    /// The row lock an update takes: [`Claim::Free`] once `tx` holds it (or held it).
    pub(crate) fn lock_row(&mut self, tx: u64, key: LockKey) -> Claim {
        if self.locks.get(&key) == Some(&tx) {
            return Claim::Free;
        }
        self.lock(tx, key)
    }

    fn lock(&mut self, tx: u64, key: LockKey) -> Claim {
        match self.locks.get(&key) {
            Some(holder) if *holder == tx => Claim::Taken,
            Some(holder) => {
                let holder = *holder;
                if self.waits_on(holder, tx) {
                    return Claim::Deadlock;
                }
                if let Some(state) = self.txs.get_mut(&tx) {
                    state.waiting_for = Some(holder);
                }
                Claim::WaitOn(holder)
            }
            None => {
                self.locks.insert(key, tx);
                if let Some(state) = self.txs.get_mut(&tx) {
                    state.waiting_for = None;
                }
                Claim::Free
            }
        }
    }

    /// Whether `from` waits, through any chain of waits, on `target`.
    fn waits_on(&self, from: u64, target: u64) -> bool {
        let mut at = from;
        for _ in 0..=self.txs.len() {
            if at == target {
                return true;
            }
            match self.txs.get(&at).and_then(|state| state.waiting_for) {
                Some(next) => at = next,
                None => return false,
            }
        }
        false
    }

    /// The open transaction holding `key`, if one does.
    pub(crate) fn holder(&self, key: &LockKey) -> Option<u64> {
        self.locks.get(key).copied()
    }

    pub(crate) fn stop_waiting(&mut self, tx: u64) {
        if let Some(state) = self.txs.get_mut(&tx) {
            state.waiting_for = None;
        }
    }

    /// Ends `tx`, applying its writes when `apply`; its locks go either way.
    pub(crate) fn end(&mut self, tx: u64, apply: bool) {
        self.locks.retain(|_, holder| *holder != tx);
        let Some(state) = self.txs.remove(&tx) else {
            return;
        };
        if apply {
            self.records.extend(state.writes.records);
            self.orders.extend(state.writes.orders);
            self.events.extend(state.writes.events);
            self.deliveries.extend(state.writes.deliveries);
            self.applications.extend(state.writes.applications);
            self.shipments.extend(state.writes.shipments);
            self.operations.extend(state.writes.operations);
            self.payments.extend(state.writes.payments);
            self.revisions.extend(state.writes.revisions);
            self.cancellations.extend(state.writes.cancellations);
            self.refunded.extend(state.writes.refunded);
            self.commits += 1;
        }
    }

    pub(crate) fn writes(&mut self, tx: u64) -> Option<&mut Writes> {
        self.txs.get_mut(&tx).map(|state| &mut state.writes)
    }

    pub(crate) fn complete(&mut self, tx: u64, id: u64, completion: &Completion) -> u64 {
        let Some(writes) = self.writes(tx) else {
            return 0;
        };
        let mine = writes
            .records
            .values_mut()
            .find(|row| row.id == id && row.state == RecordState::Processing);
        match mine {
            Some(row) => {
                row.state = RecordState::Completed(completion.clone());
                1
            }
            None => 0,
        }
    }
}
