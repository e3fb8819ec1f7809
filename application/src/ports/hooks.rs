//! Points in the flow where a test can pause or abort a request. No-ops in production.

use std::future::Future;

use domain::{IdempotencyKey, Scope};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookVerdict {
    Continue,
    /// Roll back and fail, as a crash before commit would.
    Abort,
}

/// Lets a test hold a leader inside its transaction, so race tests need no sleeps.
pub trait FlowHooks: Send + Sync {
    /// At `point` of the idempotent request with `key`. `Abort` rolls the transaction back
    /// and fails the request; at [`KeyPoint::Committed`] it is too late and ignored.
    fn at_key(
        &self,
        point: KeyPoint,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = HookVerdict> + Send {
        let _ = (point, scope, key);
        std::future::ready(HookVerdict::Continue)
    }

    /// Where a test holds a background flow, to kill it or let its lease run out.
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        let _ = point;
        std::future::ready(())
    }
}

/// Where an idempotent request's transaction passes, in order, for every operation (and
/// for every member of a batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPoint {
    /// The transaction has begun (its connection is taken); the key's record is not yet
    /// written.
    BeforeRecord,
    /// The key's record is written, uncommitted.
    RecordInserted,
    /// The step and the record's completion are written; `COMMIT` is next.
    BeforeCommit,
    /// `COMMIT` answered; the answer is not yet sent.
    Committed,
}

impl KeyPoint {
    pub const ALL: [Self; 4] = [
        Self::BeforeRecord,
        Self::RecordInserted,
        Self::BeforeCommit,
        Self::Committed,
    ];

    /// As a test arms it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::BeforeRecord => "before-record",
            Self::RecordInserted => "record-inserted",
            Self::BeforeCommit => "before-commit",
            Self::Committed => "committed",
        }
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

impl FlowHooks for NoHooks {}

#[cfg(test)]
mod tests {
    use super::{KeyPoint, PausePoint};

    #[test]
    fn key_points_are_named_as_the_tests_arm_them() {
        assert_eq!(
            KeyPoint::ALL.map(KeyPoint::name),
            [
                "before-record",
                "record-inserted",
                "before-commit",
                "committed"
            ]
        );
    }

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
