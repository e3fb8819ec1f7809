//! What the shared SQL asks of a store's connection beyond diesel's traits.

use diesel::QueryResult;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel_async::AsyncConnection;

use super::classify::Classify;

/// A store's diesel-async connection, as the shared queries use it. Each store implements
/// it for its own connection type; only how an insert learns its id differs.
pub(crate) trait SqlConnection: AsyncConnection<Backend: Classify> + Send {
    /// What an insert needs to know to learn the id it made: MySQL depends on the server
    /// (`RETURNING` or `LAST_INSERT_ID()`); SQLite always returns it, so needs nothing.
    type InsertIds: Copy + Send;

    /// Runs `insert`, a single-row insert into a table whose key is `id`, and returns the
    /// id it made.
    ///
    /// Not declared `Send`: proving that for any `I` trips over a limit of the compiler
    /// (rust-lang/rust#100013); each store's future is `Send`, which its callers see.
    async fn insert_returning_id<I>(&mut self, ids: Self::InsertIds, insert: I) -> QueryResult<u64>
    where
        I: QueryFragment<Self::Backend> + QueryId + Send;
}
