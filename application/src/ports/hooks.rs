//! Points in the flow where a test can pause or abort a request. No-ops in production.

use std::future::Future;

use domain::{IdempotencyKey, Scope};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookVerdict {
    Continue,
    /// Roll back and fail, as a crash before commit would.
    Abort,
}

/// Lets a test hold a leader between insert and commit, so race tests need no sleeps.
pub trait FlowHooks: Send + Sync {
    fn after_record_insert(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send;

    /// Where a test holds a background flow, to kill it or let its lease run out.
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        let _ = point;
        std::future::ready(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PausePoint {
    /// The relay holds its claim of a batch and has not yet published any of it.
    RelayClaimed,
    /// The relay has the broker's acks and has not yet marked the events published.
    RelayAcked,
    /// The consumer has committed its write and not yet acknowledged the message.
    ConsumerCommitted,
    /// A capture worker has the provider's answer and has not yet written the outcome.
    OperationCharged,
}

impl PausePoint {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::RelayClaimed => "relay-claimed",
            Self::RelayAcked => "relay-acked",
            Self::ConsumerCommitted => "consumer-committed",
            Self::OperationCharged => "operation-charged",
        }
    }
}

#[derive(Debug, Clone, Default)]
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
            PausePoint::RelayClaimed,
            PausePoint::RelayAcked,
            PausePoint::ConsumerCommitted,
            PausePoint::OperationCharged,
        ]
        .map(PausePoint::name);
        assert_eq!(
            names,
            [
                "relay-claimed",
                "relay-acked",
                "consumer-committed",
                "operation-charged"
            ]
        );
    }
}
