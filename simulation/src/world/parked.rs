//! Waits the scheduler ends: a lock wait (woken when its holder's transaction ends, or
//! timed out), a pause of the clock. Nothing here reads a real clock: any wait may end at
//! any step, as on a loaded machine, and only the seed says when.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

use crate::choice::Choice;
use crate::locked::locked;

type ParkId = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woken {
    /// Its time ran out (a pause ended, a lock wait timed out).
    Fired,
    /// What it waited on changed: look again.
    Released,
}

#[derive(Debug)]
struct Entry {
    waker: Option<Waker>,
    woken: Option<Woken>,
    /// A lock wait names the transaction it waits on.
    on: Option<u64>,
}

#[derive(Debug, Default)]
struct Waits {
    next: ParkId,
    entries: BTreeMap<ParkId, Entry>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Parked(Arc<Mutex<Waits>>);

impl Parked {
    fn lock(&self) -> MutexGuard<'_, Waits> {
        locked(&self.0)
    }

    /// Waits until fired or, for a lock wait (`on` its holder), released.
    pub(crate) async fn wait(&self, on: Option<u64>) -> Woken {
        let id = {
            let mut waits = self.lock();
            let id = waits.next;
            waits.next += 1;
            waits.entries.insert(
                id,
                Entry {
                    waker: None,
                    woken: None,
                    on,
                },
            );
            id
        };
        let guard = Unpark {
            parked: self.clone(),
            id,
        };
        let woken = std::future::poll_fn(|cx| {
            let mut waits = self.lock();
            let Some(entry) = waits.entries.get_mut(&id) else {
                return Poll::Ready(Woken::Released);
            };
            match entry.woken {
                Some(woken) => Poll::Ready(woken),
                None => {
                    entry.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await;
        drop(guard);
        woken
    }

    /// Ends one wait, picked by the seed; false when nothing waits.
    pub(crate) fn fire_one(&self, choice: &Choice) -> bool {
        let mut waits = self.lock();
        let pending = waits
            .entries
            .iter()
            .filter(|(_, entry)| entry.woken.is_none())
            .map(|(id, _)| *id);
        let Some(id) = choice.pick_from(pending) else {
            return false;
        };
        if let Some(entry) = waits.entries.get_mut(&id) {
            entry.woken = Some(Woken::Fired);
            if let Some(waker) = entry.waker.take() {
                waker.wake();
            }
        }
        true
    }

    /// Wakes every lock wait on `tx`, which has just ended.
    pub(crate) fn release(&self, tx: u64) {
        let mut waits = self.lock();
        for entry in waits.entries.values_mut() {
            if entry.on == Some(tx) && entry.woken.is_none() {
                entry.woken = Some(Woken::Released);
                if let Some(waker) = entry.waker.take() {
                    waker.wake();
                }
            }
        }
    }
}

/// Removes the entry however its future ends, dropped mid-wait included.
struct Unpark {
    parked: Parked,
    id: ParkId,
}

impl Drop for Unpark {
    fn drop(&mut self) {
        self.parked.lock().entries.remove(&self.id);
    }
}
