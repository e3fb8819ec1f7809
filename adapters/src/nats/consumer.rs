//! A durable pull consumer: the consumers fetch a batch, handle each message and settle
//! it themselves (ack after their commit, nak to retry, term for a poison message).

use application::ErrorChain;
use std::time::Duration;

use async_nats::header::NATS_MESSAGE_ID;
use async_nats::jetstream::consumer::{self, AckPolicy, FromConsumer};
use async_nats::jetstream::{AckKind, Context, Message};
use futures_util::StreamExt;

use super::NatsError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSpec {
    pub stream: String,
    /// Acks are remembered under this name across restarts; processes sharing it share
    /// the work.
    pub durable_name: String,
    pub filter_subject: String,
    /// Unsettled this long (the consumer died, its database was slow), a message comes again.
    pub ack_wait: Duration,
    /// `None`: no limit.
    pub max_deliver: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct PullConsumer {
    inner: consumer::PullConsumer,
}

/// An existing consumer keeps its configuration, except its filter: one written for fewer
/// event types is widened to `spec`'s, so the new types reach it from then on.
///
/// # Errors
/// [`NatsError::Stream`]: stream missing or unreachable; [`NatsError::Consumer`]: not created.
pub async fn pull_consumer(js: &Context, spec: &ConsumerSpec) -> Result<PullConsumer, NatsError> {
    let stream = js
        .get_stream_no_info(&spec.stream)
        .await
        .map_err(|e| NatsError::Stream {
            stream: spec.stream.clone(),
            source: e.into(),
        })?;
    let inner = stream
        .get_or_create_consumer(
            &spec.durable_name,
            consumer::pull::Config {
                durable_name: Some(spec.durable_name.clone()),
                filter_subject: spec.filter_subject.clone(),
                ack_policy: AckPolicy::Explicit,
                ack_wait: spec.ack_wait,
                max_deliver: spec.max_deliver.map_or(-1, i64::from),
                ..consumer::pull::Config::default()
            },
        )
        .await
        .map_err(|e| NatsError::Consumer {
            consumer: spec.durable_name.clone(),
            source: e.into(),
        })?;
    let existing = &inner.cached_info().config;
    if existing.filter_subject == spec.filter_subject {
        return Ok(PullConsumer { inner });
    }
    let was = existing.filter_subject.clone();
    let mut config =
        consumer::pull::Config::try_from_consumer_config(existing.clone()).map_err(|e| {
            NatsError::Consumer {
                consumer: spec.durable_name.clone(),
                source: e,
            }
        })?;
    config.filter_subject.clone_from(&spec.filter_subject);
    let inner = stream
        .create_consumer(config)
        .await
        .map_err(|e| NatsError::Consumer {
            consumer: spec.durable_name.clone(),
            source: e.into(),
        })?;
    tracing::info!(consumer = %spec.durable_name, was = %was, now = %spec.filter_subject, "consumer filter widened");
    Ok(PullConsumer { inner })
}

/// Waits at most `expires`. A failure after some messages arrived is logged and returns
/// those: they are delivered and must be settled.
///
/// # Errors
/// [`NatsError::Fetch`] when the pull fails before any message arrived.
pub async fn fetch(
    consumer: &PullConsumer,
    max_messages: usize,
    expires: Duration,
) -> Result<Vec<Delivery>, NatsError> {
    let mut batch = consumer
        .inner
        .fetch()
        .max_messages(max_messages)
        .expires(expires)
        .messages()
        .await
        .map_err(|e| NatsError::Fetch(e.into()))?;
    let mut deliveries = Vec::new();
    while let Some(next) = batch.next().await {
        match next {
            Ok(message) => deliveries.push(Delivery::new(message)),
            Err(e) if deliveries.is_empty() => return Err(NatsError::Fetch(e)),
            Err(e) => {
                tracing::warn!(error = %ErrorChain(e.as_ref()), received = deliveries.len(), "fetch ended early");
                break;
            }
        }
    }
    Ok(deliveries)
}

/// Settle with exactly one of `ack`, `nak` or `term`, or it comes again after the ack wait.
pub struct Delivery {
    message: Message,
    delivered: Option<u64>,
}

impl std::fmt::Debug for Delivery {
    /// Without the payload: it holds an order, and Debug output ends up in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery")
            .field("msg_id", &self.msg_id())
            .field("delivered", &self.delivered)
            .field("payload_bytes", &self.message.payload.len())
            .finish_non_exhaustive()
    }
}

impl Delivery {
    fn new(message: Message) -> Self {
        let delivered = message
            .info()
            .ok()
            .and_then(|info| u64::try_from(info.delivered).ok());
        Self { message, delivered }
    }

    #[must_use]
    pub fn payload(&self) -> &[u8] {
        &self.message.payload
    }

    /// `<type>.<tenant>`, as the relay published it.
    #[must_use]
    pub fn subject(&self) -> &str {
        self.message.subject.as_str()
    }

    /// The relay sets it to the event id.
    #[must_use]
    pub fn msg_id(&self) -> Option<&str> {
        Some(
            self.message
                .headers
                .as_ref()?
                .get(NATS_MESSAGE_ID)?
                .as_str(),
        )
    }

    /// A header's first value (the relay's `traceparent`, for one).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        Some(self.message.headers.as_ref()?.get(name)?.as_str())
    }

    /// 1 the first time; `None` only without JetStream metadata (never from a pull consumer).
    #[must_use]
    pub fn delivered(&self) -> Option<u64> {
        self.delivered
    }

    /// Waits for the server's confirmation, so an ack after the consumer's commit is known
    /// to have arrived; unconfirmed, the message comes again and the inbox recognises it.
    ///
    /// # Errors
    /// [`NatsError::Ack`] when the server did not confirm in time.
    pub async fn ack(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Ack).await
    }

    /// Redelivery now rather than after the ack wait. Errors as [`Delivery::ack`].
    pub async fn nak(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Nak(None)).await
    }

    /// For a message that would otherwise come back for ever. Errors as [`Delivery::ack`].
    pub async fn term(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Term).await
    }

    /// JetStream's "double ack", bounded by the context's request timeout.
    async fn settle(&self, kind: AckKind) -> Result<(), NatsError> {
        self.message
            .double_ack_with(kind)
            .await
            .map_err(NatsError::Ack)
    }
}
