//! NATS JetStream transport for the outbox's events (`docs/events.md`): the relay's
//! publisher and the consumers' loop. Checked against Debian's nats-server 2.9.10:
//! async-nats is built without server-2.10+ features, so no request has a field it lacks.

mod connect;
mod consume;
mod consumer;
mod error;
mod publish;
mod publisher;
mod stream;

pub use async_nats::jetstream::Context;
pub use connect::{REQUEST_TIMEOUT, connect};
pub use consume::{ConsumeStats, consume};
pub use consumer::{ConsumerSpec, Delivery, PullConsumer, fetch, pull_consumer};
pub use error::NatsError;
pub use publish::{OutgoingMessage, PublishAck, publish_batch};
pub use publisher::NatsPublisher;
pub use stream::{EVERY_EVENT, ORDERS_STREAM, StreamSpec, ensure_stream};
