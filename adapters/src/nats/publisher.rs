//! The relay's broker port over JetStream: each event goes to its subject with its id as
//! `Nats-Msg-Id`, so a second publish within the stream's duplicate window is dropped.

use std::time::Duration;

use application::ports::{EventPublisher, PendingEvent, PublishError, Stored};

use super::{Context, OutgoingMessage, publish_batch};

#[derive(Debug, Clone)]
pub struct NatsPublisher {
    js: Context,
    ack_timeout: Duration,
}

impl NatsPublisher {
    /// `ack_timeout` bounds a whole batch's acks.
    #[must_use]
    pub fn new(js: Context, ack_timeout: Duration) -> Self {
        Self { js, ack_timeout }
    }
}

impl EventPublisher for NatsPublisher {
    async fn publish(&self, events: &[PendingEvent]) -> Vec<Result<Stored, PublishError>> {
        let messages: Vec<OutgoingMessage> = events
            .iter()
            .map(|event| OutgoingMessage {
                subject: event.subject.clone(),
                msg_id: event.id.hyphenated().to_string(),
                payload: event.payload.clone(),
            })
            .collect();
        publish_batch(&self.js, &messages, self.ack_timeout)
            .await
            .into_iter()
            .map(|result| {
                result
                    .map(|ack| {
                        if ack.duplicate {
                            Stored::Duplicate
                        } else {
                            Stored::New
                        }
                    })
                    .map_err(|e| PublishError(Box::new(e)))
            })
            .collect()
    }
}
