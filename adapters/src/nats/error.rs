//! The one error type of the NATS transport.

use std::time::Duration;

/// Variants hold the client's description, never a payload (an event holds an order).
/// Strings, not the client's types: callers only log them and decide by variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NatsError {
    /// Occurs only for a bad URL: a server that is down is retried in the background.
    #[error("cannot connect to NATS: {0}")]
    Connect(String),
    #[error("JetStream stream {stream}: {reason}")]
    Stream { stream: String, reason: String },
    #[error("JetStream consumer {consumer}: {reason}")]
    Consumer { consumer: String, reason: String },
    /// Occurs when a message was refused or its ack lost; it may still be stored, and
    /// resending the same id is safe within the duplicate window.
    #[error("publish failed: {0}")]
    Publish(String),
    /// The message may still be stored, as for [`NatsError::Publish`].
    #[error("no JetStream acknowledgement within {0:?}")]
    TimedOut(Duration),
    #[error("fetch failed: {0}")]
    Fetch(String),
    /// The message comes again after the consumer's ack wait.
    #[error("acknowledgement not confirmed: {0}")]
    Ack(String),
}
