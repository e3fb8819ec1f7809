//! The one error type of the NATS transport.

use std::time::Duration;

/// What went wrong talking to NATS.
///
/// Every variant holds the client's description of the failure, never a message's payload
/// (an event holds an order; logs and metrics labels must not). Strings, not the client's
/// error types: the caller only logs them and decides by variant, and a batch's results
/// stay cheap to hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NatsError {
    /// Occurs when the URL cannot be used (a server that is merely down is not an error:
    /// the client keeps connecting in the background).
    #[error("cannot connect to NATS: {0}")]
    Connect(String),
    /// Occurs when the stream cannot be read or created.
    #[error("JetStream stream {stream}: {reason}")]
    Stream {
        /// The stream's name.
        stream: String,
        /// The client's description.
        reason: String,
    },
    /// Occurs when the consumer cannot be read or created.
    #[error("JetStream consumer {consumer}: {reason}")]
    Consumer {
        /// The durable consumer's name.
        consumer: String,
        /// The client's description.
        reason: String,
    },
    /// Occurs when a message was refused or its acknowledgement lost (the message may
    /// still have been stored: publishing it again under the same id is safe within the
    /// stream's duplicate window).
    #[error("publish failed: {0}")]
    Publish(String),
    /// Occurs when JetStream did not acknowledge a message in time (the broker is down,
    /// slow or unreachable); the message may still be stored, as for [`NatsError::Publish`].
    #[error("no JetStream acknowledgement within {0:?}")]
    TimedOut(Duration),
    /// Occurs when a pull request fails.
    #[error("fetch failed: {0}")]
    Fetch(String),
    /// Occurs when an ack, nak or term was not confirmed by the server; the message will
    /// be delivered again after the consumer's ack wait.
    #[error("acknowledgement not confirmed: {0}")]
    Ack(String),
}
