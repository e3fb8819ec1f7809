//! The simulation's consumer: the production shipments consumer that also counts, in its
//! own transaction, each time it applies an event. The count is not idempotent by itself
//! (the shipments' own rules would hide a second application), so only the inbox stands
//! between a second delivery and a second count.

use application::events::{Applied, EventType, InboxConsumer, Poison};
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::world::SimTx;

#[derive(Debug)]
pub(super) struct Counted<C>(pub(super) C);

impl<C: InboxConsumer<SimTx>> InboxConsumer<SimTx> for Counted<C> {
    type Event = C::Event;

    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn handles(&self) -> &'static [EventType] {
        self.0.handles()
    }

    fn decode(&self, payload: &[u8]) -> Result<(Uuid, Self::Event), Poison> {
        self.0.decode(payload)
    }

    async fn apply(
        &self,
        tx: &mut SimTx,
        event: &Self::Event,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Applied, StoreError> {
        let applied = self.0.apply(tx, event, id, now).await?;
        tx.count_application(self.name(), id);
        Ok(applied)
    }
}
