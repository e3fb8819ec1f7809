//! The SQL both stores share; each store keeps what differs (`docs/storage.md#decisions`).
//! Queries are async fns generic over the connection, bounded by `QueryFragment`,
//! `QueryMetadata` and `FromSqlRow`, never `LoadQuery`: its `'query` lifetime keeps the
//! compiler from proving the port's future `Send` (rust-lang/rust#100013).

pub(crate) mod bad_value;
pub(crate) mod both_stores;
pub(crate) mod classify;
pub(crate) mod commit_if;
mod complete_record;
pub(crate) mod connection;
pub(crate) mod inbox;
pub(crate) mod locked;
pub(crate) mod migrate_through;
pub(crate) mod multi_row;
pub(crate) mod outbox;
mod outbox_writer;
pub(crate) mod pairs_in;
mod readiness;
mod record_tx;
pub(crate) mod records;
mod records_batch;
pub(crate) mod rendered_once;
pub(crate) mod returning_id;
pub(crate) mod rows;
pub(crate) mod schema;
pub(crate) mod tx_connection;
