//! Same-key requests inside one process wait for the first one's result in memory instead
//! of each taking the database's lock (`docs/storage.md#same-key-requests-in-one-process`).
//!
//! Across processes the database still decides: a leader here is only a candidate there.
//! Runtime-free: followers await a shared one-shot channel, which any executor can drive.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use domain::{ExistingRecord, IdempotencyKey, Scope};
use futures_channel::oneshot;
use futures_util::FutureExt;
use futures_util::future::Shared;

/// The key's COMPLETED record, as a read would have found it; cancelled when the leader
/// leaves nothing to answer from (rolled back, refused, unknown, dropped).
pub(crate) type Landing = Shared<oneshot::Receiver<ExistingRecord>>;

type Flights = HashMap<(Scope, IdempotencyKey), Landing>;

/// Shared by every worker of a process.
#[derive(Debug, Default)]
pub struct InFlight {
    flights: Mutex<Flights>,
    waits: Arc<AtomicU64>,
}

pub(crate) enum Role<'a> {
    Leader(Lead<'a>),
    Follower(Landing),
}

impl InFlight {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts the requests that followed a leader (a metric's value).
    #[must_use]
    pub fn with_wait_counter(mut self, waits: Arc<AtomicU64>) -> Self {
        self.waits = waits;
        self
    }

    /// The first caller for a key leads; later ones follow until it lands.
    pub(crate) fn join(&self, scope: &Scope, key: &IdempotencyKey) -> Role<'_> {
        let address = (scope.clone(), key.clone());
        let mut flights = self.lock();
        if let Some(flying) = flights.get(&address) {
            self.waits.fetch_add(1, Ordering::Relaxed);
            return Role::Follower(flying.clone());
        }
        let (sender, receiver) = oneshot::channel();
        flights.insert(address.clone(), receiver.shared());
        Role::Leader(Lead {
            flights: self,
            address,
            sender: Some(sender),
        })
    }

    /// Keys with a leader now.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Flights> {
        // The map stays consistent across a panic: every change is one insert or remove.
        self.flights.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The leader's place; dropped without a record (a cancelled request) its followers hear
/// that nothing landed.
pub(crate) struct Lead<'a> {
    flights: &'a InFlight,
    address: (Scope, IdempotencyKey),
    sender: Option<oneshot::Sender<ExistingRecord>>,
}

impl Lead<'_> {
    /// `None` lets the next follower lead.
    pub(crate) fn land(mut self, record: Option<ExistingRecord>) {
        if let (Some(sender), Some(record)) = (self.sender.take(), record) {
            // Followers all gone meanwhile are no one to tell.
            let _ = sender.send(record);
        }
    }
}

impl Drop for Lead<'_> {
    /// After the record is sent, so a request joining in between finds it landed; a
    /// sender dropped unsent cancels the followers' wait.
    fn drop(&mut self) {
        self.flights.lock().remove(&self.address);
    }
}

/// Waits for the leader: its record, or `None` when it left nothing.
pub(crate) async fn landing(follower: Landing) -> Option<ExistingRecord> {
    follower.await.ok()
}

#[cfg(test)]
mod tests {
    use domain::{ActorId, Operation, TenantId};

    use super::*;

    #[test]
    fn a_led_key_is_counted_with_its_followers_and_gone_once_its_leader_lands() {
        let scope = Scope {
            tenant: TenantId::parse(1).unwrap(),
            actor: ActorId::parse(1).unwrap(),
            operation: Operation::named("orders.create.v1"),
        };
        let key = IdempotencyKey::parse("k").unwrap();
        let waits = Arc::new(AtomicU64::new(0));
        let flights = InFlight::new().with_wait_counter(Arc::clone(&waits));
        assert!(flights.is_empty());
        let Role::Leader(lead) = flights.join(&scope, &key) else {
            panic!("the first leads");
        };
        assert_eq!(flights.len(), 1);
        assert!(!flights.is_empty());
        let Role::Follower(_) = flights.join(&scope, &key) else {
            panic!("the second follows");
        };
        assert_eq!(waits.load(Ordering::Relaxed), 1, "the follower is counted");
        lead.land(None);
        assert!(flights.is_empty());
    }
}
