//! The stream the events are stored in.

use std::time::Duration;

use async_nats::jetstream::Context;
use async_nats::jetstream::stream::{Config, StorageType, Stream};

use super::NatsError;

/// The stream of `orders.created.v1` events (contract §6).
pub const ORDERS_STREAM: &str = "ORDERS";

/// Its subjects: `orders.created.v1.<tenantId>`.
pub const ORDERS_SUBJECTS: &str = "orders.created.v1.>";

/// What stream to have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSpec {
    /// The stream's name, e.g. [`ORDERS_STREAM`].
    pub name: String,
    /// The subjects it stores, e.g. [`ORDERS_SUBJECTS`].
    pub subjects: Vec<String>,
    /// How long JetStream remembers a `Nats-Msg-Id` to drop a second publish of it: the
    /// window in which a relay's retry after a lost ack is deduplicated by the broker
    /// (after it, the consumers' inbox deduplicates).
    pub duplicate_window: Duration,
}

impl StreamSpec {
    /// The `ORDERS` stream on `orders.created.v1.>`.
    #[must_use]
    pub fn orders(duplicate_window: Duration) -> Self {
        Self {
            name: ORDERS_STREAM.to_owned(),
            subjects: vec![ORDERS_SUBJECTS.to_owned()],
            duplicate_window,
        }
    }
}

/// Creates the stream, on file storage, unless it exists; an existing stream is used as
/// it is (its configuration is not compared or changed: that is an operator's decision).
/// Several processes may call this at once: JetStream creates the stream once.
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
        reason: e.to_string(),
    })
}
