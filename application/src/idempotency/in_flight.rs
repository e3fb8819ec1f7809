//! Same-key requests inside one process wait for the first one's result in memory instead
//! of each taking the database's lock (`docs/storage.md#same-key-requests-in-one-process`).
//!
//! Across processes the database still decides: a leader here is only a candidate there.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use domain::{ExistingRecord, IdempotencyKey, Scope};
use tokio::sync::watch;

type Flights = HashMap<(Scope, IdempotencyKey), watch::Receiver<Landing>>;

/// What a leader leaves for its followers.
#[derive(Debug, Clone, Default)]
pub(crate) enum Landing {
    #[default]
    Flying,
    /// The key's COMPLETED record, as a read would have found it.
    Completed(ExistingRecord),
    /// Nothing the followers can answer from (rolled back, refused, unknown): one of them
    /// leads next.
    Nothing,
}

/// Shared by every worker of a process.
#[derive(Debug, Default)]
pub struct InFlight {
    flights: Mutex<Flights>,
    waits: Arc<AtomicU64>,
}

pub(crate) enum Role<'a> {
    Leader(Lead<'a>),
    Follower(watch::Receiver<Landing>),
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
        let mut flights = self.lock();
        if let Some(flying) = flights.get(&(scope.clone(), key.clone())) {
            self.waits.fetch_add(1, Ordering::Relaxed);
            return Role::Follower(flying.clone());
        }
        let (sender, receiver) = watch::channel(Landing::Flying);
        let address = (scope.clone(), key.clone());
        flights.insert(address.clone(), receiver);
        Role::Leader(Lead {
            flights: self,
            address,
            sender,
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

/// The leader's place; dropped without [`Lead::land`] (a cancelled request) its followers
/// hear [`Landing::Nothing`].
pub(crate) struct Lead<'a> {
    flights: &'a InFlight,
    address: (Scope, IdempotencyKey),
    sender: watch::Sender<Landing>,
}

impl Lead<'_> {
    pub(crate) fn land(self, landing: Landing) {
        self.sender.send_replace(landing);
    }
}

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        self.flights.lock().remove(&self.address);
        self.sender.send_if_modified(|landing| {
            if matches!(landing, Landing::Flying) {
                *landing = Landing::Nothing;
                return true;
            }
            false
        });
    }
}

/// Waits for the leader; a leader gone without a word counts as nothing landed.
pub(crate) async fn landing(mut follower: watch::Receiver<Landing>) -> Landing {
    match follower
        .wait_for(|landing| !matches!(landing, Landing::Flying))
        .await
    {
        Ok(landed) => landed.clone(),
        Err(_gone) => Landing::Nothing,
    }
}
