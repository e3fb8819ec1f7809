//! The inbox: a consumer applies each event once in effect, however often it arrives.
//!
//! The delivery is recorded under a unique `(consumer, eventId)` key in the same
//! transaction as the consumer's own write. A redelivery finds the key taken and changes
//! nothing; a crash before the commit leaves neither, so the redelivery applies it. The
//! transport acknowledges only after [`handle_delivery`] returns, so a crash between the
//! commit and the ack is a redelivery that the inbox absorbs.

use std::future::Future;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::inbox_store::{Delivery, InboxTx};
use crate::ports::{FlowHooks, PausePoint, RecordTx, StoreError, UnitOfWork};

/// A consumer of one kind of event, writing through the transaction `Tx`.
pub trait InboxConsumer<Tx>: Send + Sync {
    /// What it reads out of a payload.
    type Event: Send + Sync;

    /// Its name: the first half of the inbox key. Fixed for ever, like an operation name.
    fn name(&self) -> &'static str;

    /// The event's id and contents.
    ///
    /// # Errors
    /// [`Poison`] when the payload can never be applied (not the event it claims to be).
    fn decode(&self, payload: &[u8]) -> Result<(Uuid, Self::Event), Poison>;

    /// Its own write, inside the transaction that records the delivery.
    fn apply(
        &self,
        tx: &mut Tx,
        event: &Self::Event,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// A payload that no retry can apply: acknowledge it as terminated and go on. The reason
/// names what is wrong, never a value of the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("undecodable event: {0}")]
pub struct Poison(pub &'static str);

/// What a delivery came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// Applied now, committed.
    Applied,
    /// Applied before: nothing changed.
    Duplicate,
}

/// Why a delivery was not handled.
#[derive(Debug, thiserror::Error)]
pub enum HandleError {
    /// Occurs when the payload can never be applied: terminate it.
    #[error(transparent)]
    Poison(#[from] Poison),
    /// Occurs when storage failed or the commit's outcome is unknown: let it be
    /// redelivered (the inbox absorbs it if the commit did happen).
    #[error("the delivery's transaction failed")]
    Retry(#[source] StoreError),
}

/// Handles one delivery: decode, record it in the inbox, apply it, commit, all or nothing.
///
/// # Errors
/// [`HandleError::Poison`] for an undecodable payload (nothing written);
/// [`HandleError::Retry`] when anything in the transaction failed (nothing committed, or
/// the commit's outcome is unknown).
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
    let (id, event) = consumer.decode(payload)?;
    let mut tx = store.begin().await.map_err(HandleError::Retry)?;
    let applied = async {
        match tx.record_delivery(consumer.name(), id, now).await? {
            Delivery::Duplicate => Ok(Handled::Duplicate),
            Delivery::First => {
                consumer.apply(&mut tx, &event, id, now).await?;
                Ok(Handled::Applied)
            }
        }
    }
    .await;
    match applied {
        Ok(Handled::Applied) => {
            tx.commit()
                .await
                .map_err(|_| HandleError::Retry(StoreError::ConnectionLost))?;
            hooks.reached(PausePoint::ConsumerCommitted).await;
            Ok(Handled::Applied)
        }
        Ok(Handled::Duplicate) => {
            // Nothing was written; a failed rollback changes nothing either.
            let _ = tx.rollback().await;
            Ok(Handled::Duplicate)
        }
        Err(error) => {
            let _ = tx.rollback().await;
            Err(HandleError::Retry(error))
        }
    }
}
