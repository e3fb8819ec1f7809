//! One worker at a time per pending operation, and the fence that stops a superseded one.
//! Pure, so every branch is tested without a database; the store's `UPDATE`s do the same.

use chrono::{DateTime, TimeDelta, Utc};

/// Each claim makes the next generation. Every write carries the generation it claimed and
/// is refused unless that is still the operation's current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Generation(u64);

impl Generation {
    pub const UNCLAIMED: Self = Self(0);

    #[must_use]
    pub fn new(raw: u64) -> Self {
        Self(raw)
    }

    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }

    #[must_use]
    pub fn next(self) -> Self {
        Self(self.0.saturating_add(1))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnerId(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an owner is 1 to 64 printable ASCII characters")]
pub struct OwnerIdError;

impl OwnerId {
    pub fn parse(raw: &str) -> Result<Self, OwnerIdError> {
        if (1..=64).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_graphic()) {
            Ok(Self(raw.to_owned()))
        } else {
            Err(OwnerIdError)
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseView {
    pub generation: Generation,
    /// `None` before the first claim or after the holder gave the lease back.
    pub holder: Option<(OwnerId, DateTime<Utc>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the operation is leased to another worker")]
pub struct Leased;

/// Another worker claimed the operation since: stop, write nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the lease was lost")]
pub struct LeaseLost;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: OwnerId,
    pub expires_at: DateTime<Utc>,
    /// The generation it was claimed as: the fence of every write under it.
    pub generation: Generation,
}

impl LeaseView {
    /// Nobody holds it, or the holder's lease has run out (`expires_at <= now`).
    #[must_use]
    pub fn claimable(&self, now: DateTime<Utc>) -> bool {
        self.holder
            .as_ref()
            .is_none_or(|(_, expires_at)| *expires_at <= now)
    }

    pub fn claim(
        &self,
        owner: OwnerId,
        now: DateTime<Utc>,
        duration: TimeDelta,
    ) -> Result<Lease, Leased> {
        if !self.claimable(now) {
            return Err(Leased);
        }
        Ok(Lease {
            owner,
            expires_at: now + duration,
            generation: self.generation.next(),
        })
    }
}

impl Lease {
    /// A lease that ran out with nobody claiming meanwhile is still this worker's.
    pub fn extend(
        &self,
        current: &LeaseView,
        now: DateTime<Utc>,
        duration: TimeDelta,
    ) -> Result<Self, LeaseLost> {
        if !self.fences(current.generation) {
            return Err(LeaseLost);
        }
        Ok(self.until(now + duration))
    }

    #[must_use]
    pub fn until(&self, expires_at: DateTime<Utc>) -> Self {
        Self {
            expires_at,
            ..self.clone()
        }
    }

    #[must_use]
    pub fn fences(&self, current: Generation) -> bool {
        current == self.generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    fn owner(name: &str) -> OwnerId {
        OwnerId::parse(name).unwrap()
    }

    const THIRTY: TimeDelta = TimeDelta::seconds(30);

    fn unclaimed() -> LeaseView {
        LeaseView {
            generation: Generation::UNCLAIMED,
            holder: None,
        }
    }

    fn held_by(lease: &Lease) -> LeaseView {
        LeaseView {
            generation: lease.generation,
            holder: Some((lease.owner.clone(), lease.expires_at)),
        }
    }

    #[test]
    fn a_claim_takes_the_next_generation_for_the_lease_time() {
        let lease = unclaimed().claim(owner("w1"), t(0), THIRTY).unwrap();
        assert_eq!(lease.generation, Generation::new(1));
        assert_eq!(lease.expires_at, t(30));
        assert_eq!(lease.owner.as_str(), "w1");
    }

    #[test]
    fn a_running_lease_refuses_claims_until_it_runs_out() {
        let first = unclaimed().claim(owner("w1"), t(0), THIRTY).unwrap();
        let view = held_by(&first);
        assert_eq!(view.claim(owner("w2"), t(29), THIRTY), Err(Leased));
        let second = view.claim(owner("w2"), t(30), THIRTY).unwrap();
        assert_eq!(
            second.generation,
            Generation::new(2),
            "one owner per generation"
        );
    }

    #[test]
    fn after_a_takeover_the_old_owner_can_neither_extend_nor_write() {
        let old = unclaimed().claim(owner("w1"), t(0), THIRTY).unwrap();
        let new = held_by(&old).claim(owner("w2"), t(31), THIRTY).unwrap();
        let now = held_by(&new);
        assert_eq!(old.extend(&now, t(32), THIRTY), Err(LeaseLost));
        assert!(!old.fences(now.generation));
        assert!(new.fences(now.generation));
    }

    #[test]
    fn the_owner_extends_its_lease_even_past_expiry_while_nobody_took_over() {
        let lease = unclaimed().claim(owner("w1"), t(0), THIRTY).unwrap();
        let extended = lease.extend(&held_by(&lease), t(40), THIRTY).unwrap();
        assert_eq!(extended.expires_at, t(70));
        assert_eq!(extended.generation, lease.generation);
    }

    #[test]
    fn owner_names_are_1_to_64_printable_ascii_characters() {
        assert!(OwnerId::parse("host-1/worker-3").is_ok());
        for bad in ["", "with space", "é", &"x".repeat(65)] {
            assert_eq!(OwnerId::parse(bad), Err(OwnerIdError), "{bad:?}");
        }
    }

    #[test]
    fn generations_count_up_and_never_overflow() {
        assert_eq!(Generation::UNCLAIMED.next().get(), 1);
        assert_eq!(Generation::new(u64::MAX).next().get(), u64::MAX);
    }
}
