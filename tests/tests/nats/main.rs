//! The NATS JetStream transport (`adapters::nats`) against a real, private `nats-server`
//! per test: the stream, deduplication by `Nats-Msg-Id`, a broker outage, and the durable
//! pull consumer's redelivery. Waits poll the server's own state, not the clock, except
//! where the server's own timer (duplicate window, ack wait) is what is tested.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod consumer;
mod outage;
mod publish;
mod stream;

use std::time::Duration;

use adapters::nats::{Context, OutgoingMessage, PublishAck, ensure_stream};
use application::ErrorChain;

/// The acks of a healthy local broker come in milliseconds; this only bounds a failure.
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

/// Connects to `url` and makes the `ORDERS` stream with a duplicate window of `window`.
async fn orders_stream(url: &str, window: Duration) -> Context {
    let js = adapters::nats::connect(url).await.unwrap();
    ensure_stream(&js, &adapters::api::event_stream(window))
        .await
        .unwrap();
    js
}

/// `count` events of tenant 1, each with an id of its own (`<prefix>-<n>`).
fn events(prefix: &str, count: usize) -> Vec<OutgoingMessage> {
    (0..count)
        .map(|n| OutgoingMessage {
            subject: "orders.created.v1.1".to_owned(),
            msg_id: format!("{prefix}-{n}"),
            payload: format!(r#"{{"eventId":"{prefix}-{n}"}}"#).into_bytes(),
            traceparent: None,
        })
        .collect()
}

/// The acks of a batch that must have succeeded.
fn all_acked(results: Vec<Result<PublishAck, adapters::nats::NatsError>>) -> Vec<PublishAck> {
    results
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|e| panic!("message {i}: {}", ErrorChain(&e))))
        .collect()
}
