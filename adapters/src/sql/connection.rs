//! What the shared SQL needs of a store's connection beyond diesel's traits.

use diesel::QueryResult;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel_async::AsyncConnection;

use super::classify::Classify;

/// Only how an insert learns its id differs between the stores.
pub(crate) trait SqlConnection: AsyncConnection<Backend: Classify> + Send {
    /// MySQL's depends on the server (`RETURNING` or `LAST_INSERT_ID()`); SQLite's is `()`.
    type InsertIds: Copy + Send;

    /// `insert` is one row into a table keyed by `id`. Not declared `Send`: the compiler
    /// cannot prove it for any `I` (rust-lang/rust#100013); each store's future is `Send`.
    /// Whether an insert can return its rows (`RETURNING`): a batch's multi-row inserts
    /// need it, and without it a batch's statements go one member at a time.
    fn returns_rows(ids: Self::InsertIds) -> bool;

    async fn insert_returning_id<I>(&mut self, ids: Self::InsertIds, insert: I) -> QueryResult<u64>
    where
        I: QueryFragment<Self::Backend> + QueryId + Send;
}
