//! The one way the simulation takes a lock. One thread runs every task, so no lock is ever
//! contended; a panic while one was held has already failed the run, so its poison is
//! passed over.

use std::sync::{Mutex, MutexGuard, PoisonError};

pub(crate) fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
