//! Publishing a batch of events with JetStream's deduplication id.

use std::future::IntoFuture;
use std::time::Duration;

use async_nats::jetstream::Context;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use futures_util::future::join_all;
use tokio::time::{Instant, timeout_at};

use super::NatsError;

/// One message to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// E.g. `orders.created.v1.<tenantId>`.
    pub subject: String,
    /// Sent as `Nats-Msg-Id`: JetStream stores a second publish of the same id within
    /// the stream's duplicate window only once, and acks it as a duplicate.
    pub msg_id: String,
    /// The body.
    pub payload: Vec<u8>,
}

/// JetStream's acknowledgement: the message is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishAck {
    /// The id was seen within the duplicate window: nothing new was stored, and
    /// `sequence` is that of the copy stored before (a relay retrying after a lost ack
    /// lands here, and may mark the event published all the same).
    pub duplicate: bool,
    /// The stream sequence of the stored message.
    pub sequence: u64,
}

/// Publishes every message, then awaits all their acks together: a batch costs about
/// one round trip, not one per message.
///
/// The whole batch is bounded by `ack_timeout`, counted from the call: when the broker
/// is down, every result is an error by then, never a hang. Messages not yet handed to
/// the connection at the deadline are not sent. A message that fails may still have
/// been stored (the ack was lost, or the client sent it after reconnecting): publishing
/// it again with the same id is safe within the duplicate window.
///
/// Returns one result per message, in the order given.
///
/// A batch is meant to be an outbox batch (hundreds): the client holds at most 5,000
/// unacknowledged publishes, so the messages of a larger batch beyond that wait for acks
/// this function only awaits after sending, and time out.
pub async fn publish_batch(
    js: &Context,
    messages: &[OutgoingMessage],
    ack_timeout: Duration,
) -> Vec<Result<PublishAck, NatsError>> {
    let deadline = Instant::now() + ack_timeout;
    // The context's own timeout bounds each send and each ack too; with it at
    // `ack_timeout`, the deadline below is the one that decides.
    let mut js = js.clone();
    js.set_timeout(ack_timeout);
    let mut pending = Vec::with_capacity(messages.len());
    for message in messages {
        if Instant::now() >= deadline {
            pending.push(Err(NatsError::TimedOut(ack_timeout)));
            continue;
        }
        let publish = PublishMessage::build()
            .payload(message.payload.clone().into())
            .message_id(&message.msg_id);
        // The send waits only when the client's outgoing buffer is full (the broker is
        // gone and messages pile up), hence the same deadline.
        let sent = timeout_at(deadline, js.send_publish(message.subject.clone(), publish)).await;
        pending.push(match sent {
            Ok(Ok(ack)) => Ok(ack),
            Ok(Err(e)) => Err(NatsError::Publish(e.to_string())),
            Err(_elapsed) => Err(NatsError::TimedOut(ack_timeout)),
        });
    }
    join_all(pending.into_iter().map(|sent| async move {
        let ack = sent?;
        match timeout_at(deadline, ack.into_future()).await {
            Ok(Ok(ack)) => Ok(PublishAck {
                duplicate: ack.duplicate,
                sequence: ack.sequence,
            }),
            Ok(Err(e)) if e.kind() == PublishErrorKind::TimedOut => {
                Err(NatsError::TimedOut(ack_timeout))
            }
            Ok(Err(e)) => Err(NatsError::Publish(e.to_string())),
            Err(_elapsed) => Err(NatsError::TimedOut(ack_timeout)),
        }
    }))
    .await
}
