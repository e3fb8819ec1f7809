//! SQLite returns an insert's id in the same statement (`RETURNING`, 3.35+; the bundled
//! library is newer).

use diesel::QueryResult;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sqlite::Sqlite;
use diesel_async::RunQueryDsl;

use super::lane::Connection;
use crate::sql::connection::SqlConnection;
use crate::sql::returning_id::{ReturningId, to_u64};

impl SqlConnection for Connection {
    type InsertIds = ();

    fn returns_rows((): ()) -> bool {
        true
    }

    async fn insert_returning_id<I>(&mut self, (): (), insert: I) -> QueryResult<u64>
    where
        I: QueryFragment<Sqlite> + QueryId + Send,
    {
        ReturningId(insert)
            .get_result::<i64>(self)
            .await
            .and_then(to_u64)
    }
}
