//! The relay: committed events from the outbox to the broker, at least once; nothing is
//! marked published without an ack (`docs/events.md#the-relay`).

use std::time::Duration;

use super::relay_store::{EventPublisher, OutboxClaim, OutboxRelayStore, Stored};
use crate::ports::{Clock, FlowHooks, PausePoint, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RelayPass {
    pub claimed: usize,
    /// Left for a later pass: an earlier event of their order was pending.
    pub deferred: usize,
    /// Acknowledged, and marked; duplicates included.
    pub published: usize,
    /// Of those, acknowledged as a copy of an event already in the stream.
    pub duplicates: usize,
    pub failed: usize,
}

impl RelayPass {
    /// A full batch of successes suggests more are waiting.
    #[must_use]
    pub fn full(&self, batch: usize) -> bool {
        self.failed == 0 && self.claimed >= batch
    }
}

#[derive(Debug, Clone)]
pub struct Relay<S, P, H> {
    store: S,
    publisher: P,
    hooks: H,
    batch: usize,
}

impl<S: OutboxRelayStore, P: EventPublisher, H: FlowHooks> Relay<S, P, H> {
    pub fn new(store: S, publisher: P, hooks: H, batch: usize) -> Self {
        Self {
            store,
            publisher,
            hooks,
            batch: batch.max(1),
        }
    }

    #[must_use]
    pub fn batch(&self) -> usize {
        self.batch
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    /// # Errors
    /// A [`StoreError`] from the claim or the marking; the claimed events stay pending.
    pub async fn run_once(&self, clock: &dyn Clock) -> Result<RelayPass, StoreError> {
        let claim = self.store.claim(self.batch).await?;
        let events = claim.events();
        let deferred = claim.deferred();
        if events.is_empty() {
            claim.settle(&[], &[], clock.now()).await?;
            return Ok(RelayPass {
                deferred,
                ..RelayPass::default()
            });
        }
        self.hooks.reached(PausePoint::RelayClaimed).await;
        let results = self.publisher.publish(events).await;
        let (mut published, mut failed, mut duplicates) = (Vec::new(), Vec::new(), 0);
        for (index, event) in events.iter().enumerate() {
            // A publisher that answers for fewer events than it was given has not
            // confirmed the rest: they count as failed, never as published.
            match results.get(index) {
                Some(Ok(stored)) => {
                    published.push(event.id);
                    duplicates += usize::from(*stored == Stored::Duplicate);
                }
                Some(Err(_)) | None => failed.push(event.id),
            }
        }
        let pass = RelayPass {
            claimed: events.len(),
            deferred,
            published: published.len(),
            duplicates,
            failed: failed.len(),
        };
        self.hooks.reached(PausePoint::RelayAcked).await;
        claim.settle(&published, &failed, clock.now()).await?;
        Ok(pass)
    }
}

/// Failures double the wait per failed pass up to `max_backoff`: an outage is no busy loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayPacing {
    pub poll: Duration,
    pub max_backoff: Duration,
}

impl RelayPacing {
    /// `failures_in_a_row` includes this pass.
    #[must_use]
    pub fn wait(
        &self,
        outcome: &Result<RelayPass, StoreError>,
        batch: usize,
        failures_in_a_row: u32,
    ) -> Duration {
        match outcome {
            Ok(pass) if pass.full(batch) => Duration::ZERO,
            Ok(pass) if pass.failed == 0 => self.poll,
            _ => {
                let factor = 2u32.saturating_pow(failures_in_a_row.min(16));
                self.poll
                    .max(Duration::from_millis(10))
                    .saturating_mul(factor)
                    .min(self.max_backoff)
            }
        }
    }
}
