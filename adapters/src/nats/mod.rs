//! NATS JetStream transport for the events of the transactional outbox (contract §6).
//!
//! Transport only: connecting, making sure the stream exists, publishing a batch with
//! JetStream's deduplication id, and a durable pull consumer. No database and no
//! application port: the relay and the consumers built on these decide what an ack, a
//! failure or a redelivery means for their rows.
//!
//! Checked against Debian's nats-server 2.9.10: async-nats is built without its
//! server-2.10+ features, so no request carries a field that server does not know.

mod connect;
mod consumer;
mod error;
mod publish;
mod stream;

pub use async_nats::jetstream::Context;
pub use connect::connect;
pub use consumer::{ConsumerSpec, Delivery, PullConsumer, fetch, pull_consumer};
pub use error::NatsError;
pub use publish::{OutgoingMessage, PublishAck, publish_batch};
pub use stream::{ORDERS_STREAM, ORDERS_SUBJECTS, StreamSpec, ensure_stream};
