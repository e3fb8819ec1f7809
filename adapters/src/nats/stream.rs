//! The stream the events are stored in.

use std::time::Duration;

use async_nats::jetstream::Context;
use async_nats::jetstream::stream::{Config, StorageType, Stream};

use super::NatsError;

/// The stream of the service's events (`docs/events.md#the-events`): every type in one
/// stream, so one subscriber sees an order's events of every type in their order.
pub const ORDERS_STREAM: &str = "ORDERS";

/// A consumer's filter that takes every event of the stream, of the types it knows and of
/// those it does not (which it acknowledges and leaves alone).
pub const EVERY_EVENT: &str = "";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSpec {
    pub name: String,
    pub subjects: Vec<String>,
    /// How long a `Nats-Msg-Id` is remembered to drop a second publish; past it, the
    /// consumers' inbox deduplicates.
    pub duplicate_window: Duration,
    /// How many servers of a JetStream cluster keep a copy: 1 on a single server, 3 (or 5)
    /// on a cluster, so a stored event outlives the loss of a server.
    pub replicas: usize,
}

impl StreamSpec {
    /// `subjects`: one per declared event type (`<type>.>`, the tenant last), as the list
    /// of what the service serves gathers them (`crate::api::event_stream`).
    #[must_use]
    pub fn orders(subjects: Vec<String>, duplicate_window: Duration) -> Self {
        Self {
            name: ORDERS_STREAM.to_owned(),
            subjects,
            duplicate_window,
            replicas: 1,
        }
    }

    /// The same stream kept on `replicas` servers of a cluster.
    #[must_use]
    pub fn with_replicas(self, replicas: usize) -> Self {
        Self { replicas, ..self }
    }
}

/// An existing stream keeps its configuration (an operator's decision), except that a
/// subject of `spec` it lacks is added: a new event type must not fail every publish.
/// Several processes may call this at once; JetStream creates the stream once.
///
/// # Errors
/// [`NatsError::Stream`] when the broker is unreachable or refuses the configuration.
pub async fn ensure_stream(js: &Context, spec: &StreamSpec) -> Result<Stream, NatsError> {
    let refused = |e: async_nats::Error| NatsError::Stream {
        stream: spec.name.clone(),
        source: e,
    };
    let stream = js
        .get_or_create_stream(Config {
            name: spec.name.clone(),
            subjects: spec.subjects.clone(),
            storage: StorageType::File,
            duplicate_window: spec.duplicate_window,
            num_replicas: spec.replicas,
            ..Config::default()
        })
        .await
        .map_err(|e| refused(e.into()))?;
    let mut config = stream.cached_info().config.clone();
    let missing: Vec<String> = spec
        .subjects
        .iter()
        .filter(|subject| !config.subjects.contains(subject))
        .cloned()
        .collect();
    if missing.is_empty() {
        return Ok(stream);
    }
    config.subjects.extend(missing.iter().cloned());
    js.update_stream(&config)
        .await
        .map_err(|e| refused(e.into()))?;
    tracing::info!(stream = %spec.name, added = ?missing, "subjects added to the existing stream");
    js.get_stream(&spec.name)
        .await
        .map_err(|e| refused(e.into()))
}
