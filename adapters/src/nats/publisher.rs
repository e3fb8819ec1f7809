//! The relay's broker port over JetStream: each event goes to its subject with its id as
//! `Nats-Msg-Id`, so a second publish within the stream's duplicate window is dropped.

use std::time::Duration;

use application::ports::{EventPublisher, PendingEvent, PublishError, Stored};

use tracing::Span;
use tracing::field::Empty;

use super::{Context, OutgoingMessage, publish_batch};
use crate::telemetry::{continue_trace, current_traceparent};

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
        let spans: Vec<Span> = events.iter().map(publish_span).collect();
        let messages: Vec<OutgoingMessage> = events
            .iter()
            .zip(&spans)
            .map(|(event, span)| OutgoingMessage {
                subject: event.subject.clone(),
                msg_id: event.id.hyphenated().to_string(),
                payload: event.payload.clone(),
                traceparent: span.in_scope(current_traceparent),
            })
            .collect();
        publish_batch(&self.js, &messages, self.ack_timeout)
            .await
            .into_iter()
            .zip(spans)
            .map(|(result, span)| {
                if result.is_err() {
                    span.record("otel.status_code", "error");
                }
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

/// The publish of one event, in the trace of the request that wrote it; it lasts from the
/// send to the broker's acknowledgement.
fn publish_span(event: &PendingEvent) -> Span {
    let span = tracing::info_span!(
        target: "spans",
        "publish",
        otel.name = "publish",
        otel.kind = "producer",
        otel.status_code = Empty,
        messaging.system = "nats",
        messaging.operation.type = "send",
        messaging.destination.name = event.subject.as_str(),
        messaging.message.id = %event.id,
    );
    continue_trace(&span, event.trace_context.as_deref());
    span
}
