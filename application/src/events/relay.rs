//! The relay: moves committed events from the outbox to the broker, at least once.
//!
//! One pass claims a batch, publishes it with every acknowledgement in flight together,
//! and marks published only what the broker acknowledged. A failed publish leaves its
//! event pending with one more attempt counted; a failure to mark leaves the whole batch
//! pending, to be sent again (the broker drops a copy within its duplicate window, and a
//! consumer's inbox drops any copy). Nothing is ever marked published without an ack.

use std::time::Duration;

use super::relay_store::{EventPublisher, OutboxClaim, OutboxRelayStore};
use crate::ports::{Clock, FlowHooks, PausePoint, StoreError};

/// What one pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RelayPass {
    /// Events claimed.
    pub claimed: usize,
    /// Events the broker acknowledged and that are now marked published.
    pub published: usize,
    /// Events whose publish failed; they stay pending, one attempt counted.
    pub failed: usize,
}

impl RelayPass {
    /// Whether the relay should go on at once: a full batch of successes suggests more
    /// are waiting.
    #[must_use]
    pub fn full(&self, batch: usize) -> bool {
        self.failed == 0 && self.claimed >= batch
    }
}

/// The relay over a store, a broker and the flow hooks.
#[derive(Debug, Clone)]
pub struct Relay<S, P, H> {
    store: S,
    publisher: P,
    hooks: H,
    batch: usize,
}

impl<S: OutboxRelayStore, P: EventPublisher, H: FlowHooks> Relay<S, P, H> {
    /// A relay claiming up to `batch` events per pass.
    pub fn new(store: S, publisher: P, hooks: H, batch: usize) -> Self {
        Self {
            store,
            publisher,
            hooks,
            batch: batch.max(1),
        }
    }

    /// Events per pass.
    #[must_use]
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// The store it relays from.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// One pass: claim, publish, mark.
    ///
    /// # Errors
    /// A [`StoreError`] from the claim or the marking; the claimed events stay pending.
    pub async fn run_once(&self, clock: &dyn Clock) -> Result<RelayPass, StoreError> {
        let claim = self.store.claim(self.batch).await?;
        let events = claim.events();
        if events.is_empty() {
            claim.settle(&[], &[], clock.now()).await?;
            return Ok(RelayPass::default());
        }
        let results = self.publisher.publish(events).await;
        let (mut published, mut failed) = (Vec::new(), Vec::new());
        for (index, event) in events.iter().enumerate() {
            // A publisher that answers for fewer events than it was given has not
            // confirmed the rest: they count as failed, never as published.
            match results.get(index) {
                Some(Ok(())) => published.push(event.id),
                Some(Err(_)) | None => failed.push(event.id),
            }
        }
        let pass = RelayPass {
            claimed: events.len(),
            published: published.len(),
            failed: failed.len(),
        };
        self.hooks.reached(PausePoint::RelayAcked).await;
        claim.settle(&published, &failed, clock.now()).await?;
        Ok(pass)
    }
}

/// How long the relay waits before its next pass: at once after a full batch, the poll
/// interval after a quiet one, and after failures a backoff that doubles per failed pass
/// up to `max`, so a broker outage costs a few claims per second, not a busy loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayPacing {
    /// The wait after a pass that found less than a batch.
    pub poll: Duration,
    /// The longest wait after failures.
    pub max_backoff: Duration,
}

impl RelayPacing {
    /// The wait after a pass, given how many passes in a row failed (this one included).
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
