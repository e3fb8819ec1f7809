//! The simulated world behind the production ports: one database shared by every
//! simulated process, its faults, and the clock only the simulation moves.

mod cancels_tx;
mod captures_tx;
mod clock;
mod db;
mod faults;
mod inbox_tx;
mod operations;
mod orders_tx;
mod parked;
mod payments_tx;
mod reader;
mod refunds_tx;
mod tx;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) use clock::SimClock;
pub(crate) use db::{Db, OperationRow, RecordKey};
pub(crate) use faults::Faults;
pub(crate) use reader::SimReader;
pub(crate) use refunds_tx::succeeded_capture;
pub(crate) use tx::{SimStore, SimTx, lost};

use crate::choice::Choice;
use crate::locked::locked;
use parked::Parked;

/// Shared by every simulated process, as one database server is.
#[derive(Debug)]
pub(crate) struct World {
    db: Mutex<Db>,
    parked: Parked,
    choice: Choice,
    faults: Mutex<Faults>,
    /// Microseconds since the run's start.
    micros: AtomicI64,
    /// Every fault that struck (drawn, or a wait the scheduler ended), and the deadlocks
    /// among them (drawn, certification, or a lock cycle the requests made themselves).
    struck: AtomicU64,
    deadlocks: AtomicU64,
}

/// How many faults had struck at one moment: a failure only a fault explains is legal
/// only for a request that lived through one (`docs/simulation.md#invariants`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Strikes {
    any: u64,
    deadlocks: u64,
}

impl Strikes {
    /// Whether any fault struck at all before this moment.
    pub(crate) fn any(self) -> bool {
        self.any > 0
    }

    /// Whether a deadlock (or a certification failure) struck between `self` and `later`.
    pub(crate) fn deadlock_before(self, later: Self) -> bool {
        later.deadlocks > self.deadlocks
    }
}

impl World {
    pub(crate) fn new(choice: Choice, faults: Faults) -> Arc<Self> {
        Arc::new(Self {
            db: Mutex::new(Db::default()),
            parked: Parked::default(),
            choice,
            faults: Mutex::new(faults),
            micros: AtomicI64::new(0),
            struck: AtomicU64::new(0),
            deadlocks: AtomicU64::new(0),
        })
    }

    pub(crate) fn db(&self) -> MutexGuard<'_, Db> {
        locked(&self.db)
    }

    pub(crate) fn faults(&self) -> Faults {
        *locked(&self.faults)
    }

    /// From here on nothing fails: the run drains and every key is asked once more.
    pub(crate) fn calm(&self) {
        *locked(&self.faults) = Faults::none();
    }

    pub(crate) fn choice(&self) -> &Choice {
        &self.choice
    }

    /// True `per_mille` times in a thousand, unless the world is calm.
    pub(crate) fn fails(&self, per_mille: impl FnOnce(&Faults) -> u32) -> bool {
        let fails = self.choice.chance(per_mille(&self.faults()));
        if fails {
            self.strike();
        }
        fails
    }

    /// A fault struck that [`World::fails`] did not draw (a crash, a dropped request).
    pub(crate) fn strike(&self) {
        self.struck.fetch_add(1, Ordering::Relaxed);
    }

    /// A transaction was rolled back as a deadlock's victim or by certification.
    pub(crate) fn deadlock_struck(&self) {
        self.deadlocks.fetch_add(1, Ordering::Relaxed);
        self.strike();
    }

    pub(crate) fn strikes(&self) -> Strikes {
        Strikes {
            any: self.struck.load(Ordering::Relaxed),
            deadlocks: self.deadlocks.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn tick(&self, micros: i64) {
        self.micros.fetch_add(micros, Ordering::Relaxed);
    }

    pub(crate) fn micros(&self) -> i64 {
        self.micros.load(Ordering::Relaxed)
    }

    /// Ends one pending wait (a pause, a lock wait), picked by the seed.
    pub(crate) fn fire_one(&self) -> bool {
        self.tick(1_000);
        let fired = self.parked.fire_one(&self.choice);
        if fired {
            self.strike();
        }
        fired
    }

    pub(crate) fn parked(&self) -> &Parked {
        &self.parked
    }
}
