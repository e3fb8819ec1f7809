//! The simulated world behind the production ports: one database shared by every
//! simulated process, its faults, and the clock only the simulation moves.

mod clock;
mod db;
mod faults;
mod inbox_tx;
mod operations;
mod orders_tx;
mod parked;
mod payments_tx;
mod reader;
mod tx;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) use clock::SimClock;
pub(crate) use db::{Db, OperationRow, RecordKey};
pub(crate) use faults::Faults;
pub(crate) use reader::SimReader;
pub(crate) use tx::{SimStore, lost};

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
}

impl World {
    pub(crate) fn new(choice: Choice, faults: Faults) -> Arc<Self> {
        Arc::new(Self {
            db: Mutex::new(Db::default()),
            parked: Parked::default(),
            choice,
            faults: Mutex::new(faults),
            micros: AtomicI64::new(0),
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
        self.choice.chance(per_mille(&self.faults()))
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
        self.parked.fire_one(&self.choice)
    }

    pub(crate) fn parked(&self) -> &Parked {
        &self.parked
    }
}
