//! The stream the events are stored in.

use std::time::Duration;

use async_nats::jetstream::Context;
use async_nats::jetstream::stream::{Config, StorageType, Stream};

use super::NatsError;

/// The stream of `orders.created.v1` events (`docs/events.md#the-event`).
pub const ORDERS_STREAM: &str = "ORDERS";

pub const ORDERS_SUBJECTS: &str = "orders.created.v1.>";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSpec {
    pub name: String,
    pub subjects: Vec<String>,
    /// How long a `Nats-Msg-Id` is remembered to drop a second publish; past it, the
    /// consumers' inbox deduplicates.
    pub duplicate_window: Duration,
}

impl StreamSpec {
    #[must_use]
    pub fn orders(duplicate_window: Duration) -> Self {
        Self {
            name: ORDERS_STREAM.to_owned(),
            subjects: vec![ORDERS_SUBJECTS.to_owned()],
            duplicate_window,
        }
    }
}

/// An existing stream is used as it is: its configuration is an operator's decision.
/// Several processes may call this at once; JetStream creates the stream once.
///
/// # Errors
/// [`NatsError::Stream`] when the broker is unreachable or refuses the configuration.
pub async fn ensure_stream(js: &Context, spec: &StreamSpec) -> Result<Stream, NatsError> {
    js.get_or_create_stream(Config {
        name: spec.name.clone(),
        subjects: spec.subjects.clone(),
        storage: StorageType::File,
        duplicate_window: spec.duplicate_window,
        ..Config::default()
    })
    .await
    .map_err(|e| NatsError::Stream {
        stream: spec.name.clone(),
        source: e.into(),
    })
}
