//! What each batched operation's recent batches met, which decides what its next batch
//! does first: read its keys (`docs/storage.md#a-batchs-read-of-its-keys`), and plan
//! warily, reading what could refuse a member (`docs/storage.md#batched-operations`).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Below this share of members found, a batch skips the keys' read: a load of new keys pays
/// for no read, and one taken key among them (a rerun) turns the read back on.
const READ_FROM_SHARE: f64 = 0.02;

/// While at least this share of recent batches was refused, or left a member that was
/// refused alone, batches plan warily: about ten batches after the last refusal, so a load
/// where refusals go on keeps reading, and one that met a single stray refusal soon stops.
const WARY_FROM_SHARE: f64 = 0.015;

/// One operation's shares, each moved a quarter of the way to every batch's own figure.
#[derive(Debug, Clone, Copy)]
struct Shares {
    /// Of members whose key had a record.
    found: f64,
    /// Of batches the step refused.
    refused: f64,
}

impl Default for Shares {
    /// A process starts reading keys, and not wary.
    fn default() -> Self {
        Self {
            found: 1.0,
            refused: 0.0,
        }
    }
}

fn toward(share: &mut f64, own: f64) {
    *share += (own - *share) / 4.0;
}

#[derive(Debug, Default)]
pub(crate) struct RecentShares(Mutex<HashMap<&'static str, Shares>>);

impl RecentShares {
    fn with<T>(&self, operation: &'static str, f: impl FnOnce(&mut Shares) -> T) -> T {
        let mut shares = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        f(shares.entry(operation).or_default())
    }

    /// Whether the operation's next batch reads its keys first.
    pub(crate) fn reads_keys(&self, operation: &'static str) -> bool {
        self.with(operation, |shares| shares.found >= READ_FROM_SHARE)
    }

    /// A batch's read found `found` of its `members` keys with a record.
    pub(crate) fn read_found(&self, operation: &'static str, found: usize, members: usize) {
        let own = found as f64 / members.max(1) as f64;
        self.with(operation, |shares| toward(&mut shares.found, own));
    }

    /// A batch that skipped the read met a taken key: the next ones read again.
    pub(crate) fn key_taken(&self, operation: &'static str) {
        self.with(operation, |shares| shares.found = 1.0);
    }

    /// Whether the operation's next batch plans warily.
    pub(crate) fn plans_warily(&self, operation: &'static str) -> bool {
        self.with(operation, |shares| shares.refused >= WARY_FROM_SHARE)
    }

    /// A batch's step ran to its end (`refused` false) or refused, or (`refused` true) a
    /// member it left to run alone was refused there.
    pub(crate) fn step_ended(&self, operation: &'static str, refused: bool) {
        let own = if refused { 1.0 } else { 0.0 };
        self.with(operation, |shares| toward(&mut shares.refused, own));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OP: &str = "orders.create.v1";

    #[test]
    fn batches_read_their_keys_until_they_find_none_and_again_after_a_taken_key() {
        let shares = RecentShares::default();
        assert!(shares.reads_keys(OP), "at first");
        for _ in 0..4 {
            shares.read_found(OP, 1, 5);
        }
        assert!(
            shares.reads_keys(OP),
            "while a fifth of the keys are retries"
        );
        let mut batches = 0;
        while shares.reads_keys(OP) {
            shares.read_found(OP, 0, 8);
            batches += 1;
            assert!(batches < 20, "never stopped reading");
        }
        assert!(batches > 5, "stopped after {batches} batches");
        shares.key_taken(OP);
        assert!(shares.reads_keys(OP), "a taken key turns the read back on");
        assert!(
            shares.reads_keys("orders.cancel.v1"),
            "each operation its own"
        );
    }

    #[test]
    fn a_refused_batch_makes_about_the_next_ten_plan_warily() {
        let shares = RecentShares::default();
        assert!(!shares.plans_warily(OP), "at first");
        shares.step_ended(OP, true);
        let mut wary = 0;
        while shares.plans_warily(OP) {
            shares.step_ended(OP, false);
            wary += 1;
            assert!(wary < 20, "never stopped");
        }
        assert!((8..=12).contains(&wary), "{wary} wary batches");
        assert!(
            !shares.plans_warily("orders.cancel.v1"),
            "each operation its own"
        );
    }
}
