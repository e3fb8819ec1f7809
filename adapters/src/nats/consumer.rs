//! A durable pull consumer: the consumers fetch a batch, handle each message and settle
//! it themselves (ack after their commit, nak to retry, term for a poison message).

use std::time::Duration;

use async_nats::header::NATS_MESSAGE_ID;
use async_nats::jetstream::consumer::{self, AckPolicy};
use async_nats::jetstream::{AckKind, Context, Message};
use futures_util::StreamExt;

use super::NatsError;

/// Which durable consumer to have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSpec {
    /// The stream it reads, e.g. [`super::ORDERS_STREAM`].
    pub stream: String,
    /// The durable name (e.g. `shipments`): JetStream remembers what it acked across
    /// restarts, and processes sharing the name share the work.
    pub durable_name: String,
    /// The subjects it takes, e.g. [`super::ORDERS_SUBJECTS`].
    pub filter_subject: String,
    /// How long a delivered message may stay unsettled before JetStream delivers it
    /// again (the consumer died, or its database was slow).
    pub ack_wait: Duration,
    /// How many deliveries a message gets at the most; `None`: no limit.
    pub max_deliver: Option<u32>,
}

/// A durable pull consumer with explicit acks.
#[derive(Debug, Clone)]
pub struct PullConsumer {
    inner: consumer::PullConsumer,
}

/// Creates the durable consumer unless it exists; an existing one is used as it is (its
/// configuration is not compared or changed).
///
/// # Errors
/// [`NatsError::Stream`] when the stream is missing or unreachable,
/// [`NatsError::Consumer`] when the consumer cannot be created.
pub async fn pull_consumer(js: &Context, spec: &ConsumerSpec) -> Result<PullConsumer, NatsError> {
    let stream = js
        .get_stream_no_info(&spec.stream)
        .await
        .map_err(|e| NatsError::Stream {
            stream: spec.stream.clone(),
            reason: e.to_string(),
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
            reason: e.to_string(),
        })?;
    Ok(PullConsumer { inner })
}

/// Fetches up to `max_messages` messages, waiting at most `expires` for them to come:
/// fewer (or none) when fewer are available by then.
///
/// A failure after some messages arrived returns those (they are delivered and must be
/// settled, or they wait out their ack wait), and is logged.
///
/// # Errors
/// [`NatsError::Fetch`] when the pull request fails before any message arrived.
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
        .map_err(|e| NatsError::Fetch(e.to_string()))?;
    let mut deliveries = Vec::new();
    while let Some(next) = batch.next().await {
        match next {
            Ok(message) => deliveries.push(Delivery::new(message)),
            Err(e) if deliveries.is_empty() => return Err(NatsError::Fetch(e.to_string())),
            Err(e) => {
                tracing::warn!(error = %e, received = deliveries.len(), "fetch ended early");
                break;
            }
        }
    }
    Ok(deliveries)
}

/// One delivered message, to be settled with exactly one of [`Delivery::ack`],
/// [`Delivery::nak`] or [`Delivery::term`] (or left to be delivered again after the ack
/// wait).
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

    /// The body as published.
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        &self.message.payload
    }

    /// The publisher's `Nats-Msg-Id`, if it set one (the relay sets the event id).
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

    /// How many times this message has been delivered, this time included (1 the first
    /// time). `None` only for a message without JetStream metadata, which a pull
    /// consumer never hands out.
    #[must_use]
    pub fn delivered(&self) -> Option<u64> {
        self.delivered
    }

    /// Settles the message as done, and waits for the server to confirm: an ack sent
    /// after the consumer's commit is known to have arrived (when it is not, the message
    /// comes again and the consumer's inbox recognises it).
    ///
    /// # Errors
    /// [`NatsError::Ack`] when the server did not confirm in time.
    pub async fn ack(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Ack).await
    }

    /// Asks for the message again now (e.g. the consumer's database was unavailable),
    /// rather than after the ack wait.
    ///
    /// # Errors
    /// [`NatsError::Ack`] when the server did not confirm in time.
    pub async fn nak(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Nak(None)).await
    }

    /// Stops all further deliveries of the message without it being done: for a message
    /// that can never be handled (it does not parse), which would otherwise come back
    /// for ever.
    ///
    /// # Errors
    /// [`NatsError::Ack`] when the server did not confirm in time.
    pub async fn term(&self) -> Result<(), NatsError> {
        self.settle(AckKind::Term).await
    }

    /// Sends `kind` and waits for the server's reply (JetStream's "double ack"), within
    /// the context's request timeout.
    async fn settle(&self, kind: AckKind) -> Result<(), NatsError> {
        self.message
            .double_ack_with(kind)
            .await
            .map_err(|e| NatsError::Ack(e.to_string()))
    }
}
