//! What the worker is given (`docs/long-running-operations.md#the-worker`): its settings,
//! the ports it works through, and what it holds of a claimed operation.

use std::time::Duration;

use chrono::TimeDelta;
use domain::{Lease, OwnerId};

use super::ports::DueOperation;
use crate::ports::Clock;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSettings {
    pub owner: OwnerId,
    pub lease: TimeDelta,
    /// Calls without a definite answer before the operation ends `needs_review`.
    pub max_attempts: u32,
    /// Before the second attempt; it doubles per attempt, up to 64 times.
    pub first_backoff: Duration,
    /// How long the other service keeps a key; an older operation ends `needs_review`
    /// uncalled.
    pub key_retention: TimeDelta,
}

impl WorkerSettings {
    /// Three per lease, so one slow extension does not let it run out.
    #[must_use]
    pub fn heartbeat(&self) -> Duration {
        (self.lease / 3).to_std().unwrap_or(Duration::from_secs(1))
    }

    /// The wait before attempt `attempts + 1`.
    pub(super) fn backoff(&self, attempts: u32) -> TimeDelta {
        let factor = 1u32 << attempts.saturating_sub(1).min(6);
        TimeDelta::from_std(self.first_backoff * factor).unwrap_or(TimeDelta::MAX)
    }
}

/// Told of every call to the other service and what it came to: `call` is one of the
/// kind's [`super::CallNames`], `result` `definite`/`unknown` for a call and
/// `found`/`not_found`/`error` for a result query.
pub trait CallObserver: Send + Sync {
    fn called(&self, call: &'static str, result: &'static str);
}

/// Counts nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl CallObserver for Unobserved {
    fn called(&self, _call: &'static str, _result: &'static str) {}
}

pub struct WorkerPorts<'a, S, P, H> {
    pub store: &'a S,
    pub provider: &'a P,
    pub clock: &'a dyn Clock,
    pub hooks: &'a H,
    pub calls: &'a dyn CallObserver,
}

impl<S, P, H> Clone for WorkerPorts<'_, S, P, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, P, H> Copy for WorkerPorts<'_, S, P, H> {}

impl<S, P, H> std::fmt::Debug for WorkerPorts<'_, S, P, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPorts").finish_non_exhaustive()
    }
}

/// One operation of a group, claimed: its slot in the group and the lease it holds now.
pub(super) struct Held<'a> {
    pub(super) slot: usize,
    pub(super) operation: &'a DueOperation,
    pub(super) lease: Lease,
}
