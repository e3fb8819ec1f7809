//! Every decision of a run, from one seeded generator shared by the scheduler and the
//! simulated world: the same seed makes the same choices in the same order.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::locked::locked;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone)]
pub(crate) struct Choice(Arc<Mutex<ChaCha8Rng>>);

impl std::fmt::Debug for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Choice")
    }
}

impl Choice {
    pub(crate) fn seeded(seed: u64) -> Self {
        Self(Arc::new(Mutex::new(ChaCha8Rng::seed_from_u64(seed))))
    }

    fn rng(&self) -> MutexGuard<'_, ChaCha8Rng> {
        locked(&self.0)
    }

    /// One of `items`, or none when there are none.
    pub(crate) fn pick_from<T>(&self, items: impl Iterator<Item = T>) -> Option<T> {
        let items: Vec<T> = items.collect();
        if items.is_empty() {
            return None;
        }
        let at = self.below(items.len());
        items.into_iter().nth(at)
    }

    /// `0..n`; `n` must not be 0.
    pub(crate) fn below(&self, n: usize) -> usize {
        self.rng().random_range(0..n.max(1))
    }

    /// True `per_mille` times in a thousand.
    pub(crate) fn chance(&self, per_mille: u32) -> bool {
        per_mille > 0 && self.rng().random_range(0..1000) < per_mille
    }
}
