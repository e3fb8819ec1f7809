//! The inbox: each event applied once per consumer (`docs/events.md#consumers-and-the-inbox`).

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::EventType;
use super::inbox_store::{Delivery, InboxTx};
use crate::ports::{FlowHooks, PausePoint, RecordTx, StoreError, UnitOfWork};

pub trait InboxConsumer<Tx>: Send + Sync {
    type Event: Send + Sync;

    /// The first half of the inbox key: fixed for ever, like an operation name.
    fn name(&self) -> &'static str;

    /// The event types it applies; any other type is acknowledged and left alone, so a new
    /// event type never breaks a consumer that does not ask for it.
    fn handles(&self) -> &'static [EventType];

    /// Called only for a type it [`handles`](Self::handles).
    ///
    /// # Errors
    /// [`Poison`] when the payload is not the event it claims to be.
    fn decode(&self, payload: &[u8]) -> Result<(Uuid, Self::Event), Poison>;

    fn apply(
        &self,
        tx: &mut Tx,
        event: &Self::Event,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Applied, StoreError>> + Send;
}

/// What applying an event did. Either way the delivery is recorded, so it is never
/// applied again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The consumer's write happened.
    Changed,
    /// Nothing to do: a newer event of the same thing was applied first.
    Outdated,
    /// The event asks for a change the consumer's state no longer allows; someone may
    /// want to know. The reason never quotes the event.
    LeftAlone(&'static str),
}

/// No retry can apply it: ack it as terminated. It names what is wrong, never a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("undecodable event: {0}")]
pub struct Poison(pub &'static str);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    Applied,
    /// Recorded without a change: see [`Applied::Outdated`].
    Outdated,
    /// Recorded without a change: see [`Applied::LeftAlone`].
    LeftAlone(&'static str),
    Duplicate,
    /// Of a type the consumer does not handle: nothing was read or written.
    Ignored,
}

#[derive(Debug, thiserror::Error)]
pub enum HandleError {
    #[error(transparent)]
    Poison(#[from] Poison),
    /// Redeliver; the inbox absorbs the copy if the commit did happen.
    #[error("the delivery's transaction failed")]
    Retry(#[source] StoreError),
}

/// The transport must ack only after this returns, so a crash before the ack is absorbed.
///
/// # Errors
/// `Poison` (nothing written), or `Retry`: nothing committed, or the commit is unknown.
pub async fn handle_delivery<U, C, H>(
    store: &U,
    consumer: &C,
    hooks: &H,
    payload: &[u8],
    now: DateTime<Utc>,
) -> Result<Handled, HandleError>
where
    U: UnitOfWork<Tx: InboxTx>,
    C: InboxConsumer<U::Tx>,
    H: FlowHooks,
{
    if !handled_type(consumer.handles(), payload)? {
        return Ok(Handled::Ignored);
    }
    let (id, event) = consumer.decode(payload)?;
    let mut tx = store.begin().await.map_err(HandleError::Retry)?;
    let applied = async {
        match tx.record_delivery(consumer.name(), id, now).await? {
            Delivery::Duplicate => Ok(Handled::Duplicate),
            Delivery::First => Ok(match consumer.apply(&mut tx, &event, id, now).await? {
                Applied::Changed => Handled::Applied,
                Applied::Outdated => Handled::Outdated,
                Applied::LeftAlone(why) => Handled::LeftAlone(why),
            }),
        }
    }
    .await;
    match applied {
        Ok(handled @ (Handled::Applied | Handled::Outdated | Handled::LeftAlone(_))) => {
            tx.commit()
                .await
                .map_err(|error| HandleError::Retry(error.into()))?;
            hooks.reached(PausePoint::ConsumerCommitted).await;
            Ok(handled)
        }
        Ok(handled @ (Handled::Duplicate | Handled::Ignored)) => {
            // Nothing was written; a failed rollback changes nothing either.
            let _ = tx.rollback().await;
            Ok(handled)
        }
        Err(error) => {
            let _ = tx.rollback().await;
            Err(HandleError::Retry(error))
        }
    }
}

/// Whether the envelope's `type` is one `handles` names.
///
/// # Errors
/// [`Poison`] for a payload with no `type` to read: no consumer could tell what it is.
fn handled_type(handles: &[EventType], payload: &[u8]) -> Result<bool, Poison> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(rename = "type", borrow)]
        event_type: std::borrow::Cow<'a, str>,
    }
    let envelope: Envelope<'_> = serde_json::from_slice(payload)
        .map_err(|_| Poison("not an event document (no type to read)"))?;
    Ok(handles
        .iter()
        .any(|handled| handled.name == envelope.event_type))
}
