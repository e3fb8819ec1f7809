//! NATS JetStream transport for the events of the transactional outbox (contract §6).
//!
//! The transport (connecting, making sure the stream exists, publishing a batch with
//! JetStream's deduplication id, a durable pull consumer), the relay's publisher port on
//! it, and the consumers' loop, which settles each message after the inbox handled it.
//!
//! Checked against Debian's nats-server 2.9.10: async-nats is built without its
//! server-2.10+ features, so no request carries a field that server does not know.

mod connect;
mod consume;
mod consumer;
mod error;
mod publish;
mod publisher;
mod stream;

pub use async_nats::jetstream::Context;
pub use connect::connect;
pub use consume::{ConsumeStats, consume};
pub use consumer::{ConsumerSpec, Delivery, PullConsumer, fetch, pull_consumer};
pub use error::NatsError;
pub use publish::{OutgoingMessage, PublishAck, publish_batch};
pub use publisher::NatsPublisher;
pub use stream::{ORDERS_STREAM, ORDERS_SUBJECTS, StreamSpec, ensure_stream};
