//! A counter whose value lives in an `Arc` the application's parts count into directly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Shared with the coordinators, which count deadlocked transactions into it.
#[derive(Debug, Default)]
pub(super) struct SharedCount(pub(super) Arc<AtomicU64>);

impl prometheus_client::metrics::counter::Atomic<u64> for SharedCount {
    fn inc(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }

    fn inc_by(&self, v: u64) -> u64 {
        self.0.fetch_add(v, Ordering::Relaxed)
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}
