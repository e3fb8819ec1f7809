//! Points in the flow where a test can pause or abort a request. No-ops in production.

use std::future::Future;

use domain::{IdempotencyKey, Scope};

/// Whether the flow goes on after a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookVerdict {
    /// Go on as normal.
    Continue,
    /// Roll the transaction back and report a failure (simulates a crash before commit).
    Abort,
}

/// Observes the flow. Tests use it to hold a leader between its record insert and its
/// commit, so a follower meets an uncommitted key without any sleep.
pub trait FlowHooks: Send + Sync {
    /// Called after the `PROCESSING` record was inserted, inside the open transaction.
    fn after_record_insert(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send;

    /// Called at a named point of a background flow (the relay after the broker's acks,
    /// the consumer after its commit, a capture worker before it writes the outcome),
    /// where a test holds the process to kill it or to let its lease run out.
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        let _ = point;
        std::future::ready(())
    }
}

/// The named points of [`FlowHooks::reached`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PausePoint {
    /// The relay has the broker's acks and has not yet marked the events published.
    RelayAcked,
    /// The consumer has committed its write and not yet acknowledged the message.
    ConsumerCommitted,
    /// A capture worker has the provider's answer and has not yet written the outcome.
    OperationCharged,
}

impl PausePoint {
    /// The point's name, as tests spell it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::RelayAcked => "relay-acked",
            Self::ConsumerCommitted => "consumer-committed",
            Self::OperationCharged => "operation-charged",
        }
    }
}

/// The production hooks: nothing happens.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl FlowHooks for NoHooks {
    fn after_record_insert(
        &self,
        _scope: &Scope,
        _key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send {
        std::future::ready(HookVerdict::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::PausePoint;

    #[test]
    fn pause_points_are_named_as_the_tests_arm_them() {
        let names = [
            PausePoint::RelayAcked,
            PausePoint::ConsumerCommitted,
            PausePoint::OperationCharged,
        ]
        .map(PausePoint::name);
        assert_eq!(
            names,
            ["relay-acked", "consumer-committed", "operation-charged"]
        );
    }
}
