//! Publishing a batch of events with JetStream's deduplication id.

use std::future::IntoFuture;
use std::time::Duration;

use async_nats::jetstream::Context;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use futures_util::future::join_all;
use tokio::time::{Instant, timeout_at};

use super::NatsError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub subject: String,
    /// Sent as `Nats-Msg-Id`: a second publish within the duplicate window is stored once.
    pub msg_id: String,
    pub payload: Vec<u8>,
    /// Sent as the `traceparent` header: the consumer continues the publisher's trace.
    pub traceparent: Option<String>,
}

/// JetStream's acknowledgement: the message is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishAck {
    /// Nothing new was stored and `sequence` is the earlier copy's; the event still counts
    /// as published.
    pub duplicate: bool,
    pub sequence: u64,
}

/// Sends every message, then awaits all acks together (one round trip per batch), all
/// within `ack_timeout` of the call: a dead broker gives errors, never a hang. A failed
/// message may still be stored; resending its id is safe within the duplicate window.
/// One result per message, in order. Past 5,000 unacknowledged publishes (the client's
/// limit) the excess times out: meant for an outbox batch of hundreds.
pub async fn publish_batch(
    js: &Context,
    messages: &[OutgoingMessage],
    ack_timeout: Duration,
) -> Vec<Result<PublishAck, NatsError>> {
    let deadline = Instant::now() + ack_timeout;
    // At `ack_timeout`, the context's own timeout never fires before the deadline.
    let mut js = js.clone();
    js.set_timeout(ack_timeout);
    let mut pending = Vec::with_capacity(messages.len());
    for message in messages {
        if Instant::now() >= deadline {
            pending.push(Err(NatsError::TimedOut(ack_timeout)));
            continue;
        }
        let mut publish = PublishMessage::build()
            .payload(message.payload.clone().into())
            .message_id(&message.msg_id);
        if let Some(traceparent) = &message.traceparent {
            publish = publish.header("traceparent", traceparent.as_str());
        }
        // The send blocks while the outgoing buffer is full (the broker is gone).
        let sent = timeout_at(deadline, js.send_publish(message.subject.clone(), publish)).await;
        pending.push(match sent {
            Ok(Ok(ack)) => Ok(ack),
            Ok(Err(e)) => Err(NatsError::Publish(e.into())),
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
            Ok(Err(e)) => Err(NatsError::Publish(e.into())),
            Err(_elapsed) => Err(NatsError::TimedOut(ack_timeout)),
        }
    }))
    .await
}
