//! The one error type of the NATS transport.

use std::time::Duration;

use application::BoxError;

/// Variants hold the client's error, never a payload (an event holds an order). Callers
/// log them with their causes and decide by variant.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// Occurs only for a bad URL: a server that is down is retried in the background.
    #[error("cannot connect to NATS")]
    Connect(#[source] BoxError),
    #[error("JetStream stream {stream} is unavailable")]
    Stream {
        stream: String,
        #[source]
        source: BoxError,
    },
    #[error("JetStream consumer {consumer} is unavailable")]
    Consumer {
        consumer: String,
        #[source]
        source: BoxError,
    },
    /// Occurs when a message was refused or its ack lost; it may still be stored, and
    /// resending the same id is safe within the duplicate window.
    #[error("publish failed")]
    Publish(#[source] BoxError),
    /// The message may still be stored, as for [`NatsError::Publish`].
    #[error("no JetStream acknowledgement within {0:?}")]
    TimedOut(Duration),
    #[error("fetch failed")]
    Fetch(#[source] BoxError),
    /// The message comes again after the consumer's ack wait.
    #[error("acknowledgement not confirmed")]
    Ack(#[source] BoxError),
}
