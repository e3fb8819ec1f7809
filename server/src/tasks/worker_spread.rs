//! Where each worker task stands: its lease owner id, its process's shift, its backoff.

use std::time::Duration;

use domain::{OwnerId, OwnerIdError};
use uuid::Uuid;

const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The poll, doubled per failure in a row, up to [`MAX_BACKOFF`] unless the poll is longer.
pub(crate) fn failure_wait(poll: Duration, failures: u32) -> Duration {
    poll.saturating_mul(1 << failures.min(16))
        .min(MAX_BACKOFF)
        .max(poll)
}

/// `<pid>-<task>-<8 hex digits of nonce>`: the lease names the process and task that hold
/// it, and the nonce makes a restarted process that reuses a pid another owner.
pub(crate) fn owner_id(pid: u32, task: usize, nonce: Uuid) -> Result<OwnerId, OwnerIdError> {
    let nonce = nonce.simple().to_string();
    OwnerId::parse(&format!("{pid}-{task}-{}", &nonce[..8]))
}

/// The process's shift of every read of the due operations ([`super::due_feed`]).
pub(crate) fn spread_seed(random: Uuid) -> usize {
    let bytes = random.into_bytes();
    usize::from(u16::from_le_bytes([bytes[0], bytes[1]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_ids_name_the_process_and_task_and_differ_per_start() {
        let nonce = Uuid::from_u128(0xdead_beef_0000_0000_0000_0000_0000_0001);
        let owner = owner_id(4242, 3, nonce).unwrap();
        assert_eq!(owner.as_str(), "4242-3-deadbeef");
        let longest = owner_id(u32::MAX, 63, Uuid::new_v4()).unwrap();
        assert!(longest.as_str().len() <= 64);
        assert_ne!(
            owner_id(1, 0, Uuid::new_v4()).unwrap(),
            owner_id(1, 0, Uuid::new_v4()).unwrap()
        );
    }

    #[test]
    fn failures_back_off_doubling_up_to_the_bound() {
        let poll = Duration::from_millis(200);
        assert_eq!(failure_wait(poll, 1), Duration::from_millis(400));
        assert_eq!(failure_wait(poll, 2), Duration::from_millis(800));
        assert_eq!(failure_wait(poll, 40), MAX_BACKOFF);
        let slow = Duration::from_secs(60);
        assert_eq!(failure_wait(slow, 1), slow);
    }

    #[test]
    fn the_seed_comes_from_the_random_bytes() {
        assert_eq!(spread_seed(Uuid::from_u128(0x0102 << 112)), 0x0201);
        assert_ne!(spread_seed(Uuid::from_u128(1 << 120)), 0);
    }
}
