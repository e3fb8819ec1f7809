//! How an insert learns its id: `RETURNING` in the same round trip (MariaDB 10.5+), else
//! `SELECT LAST_INSERT_ID()` on the same connection.

use diesel::QueryResult;
use diesel::mysql::Mysql;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

use crate::sql::connection::SqlConnection;
use crate::sql::rendered_once::RenderedOnce;
use crate::sql::returning_id::{ReturningId, to_u64};

/// Learnt once per store, at its first connection, from the server's version string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertIds {
    /// One round trip per insert.
    Returning,
    /// Two round trips per insert.
    LastInsertId,
}

impl InsertIds {
    /// MariaDB from 10.5 on has `RETURNING`; MySQL (8 included) and older MariaDB do not.
    #[must_use]
    pub fn for_version(version: &str) -> Self {
        if !version.contains("MariaDB") {
            return Self::LastInsertId;
        }
        let mut numbers = version
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse::<u32>().ok());
        match (numbers.next(), numbers.next()) {
            (Some(major), Some(minor)) if (major, minor) >= (10, 5) => Self::Returning,
            _ => Self::LastInsertId,
        }
    }
}

impl SqlConnection for AsyncMysqlConnection {
    type InsertIds = InsertIds;

    fn returns_rows(ids: InsertIds) -> bool {
        ids == InsertIds::Returning
    }

    async fn insert_returning_id<I>(&mut self, ids: InsertIds, insert: I) -> QueryResult<u64>
    where
        I: QueryFragment<Mysql> + QueryId + Send,
    {
        match ids {
            InsertIds::Returning => RenderedOnce(ReturningId(insert))
                .get_result::<i64>(self)
                .await
                .and_then(to_u64),
            InsertIds::LastInsertId => {
                RenderedOnce(insert).execute(self).await?;
                diesel::select(sql::last_insert_id()).get_result(self).await
            }
        }
    }
}

mod sql {
    diesel::define_sql_function! {
        fn last_insert_id() -> Unsigned<BigInt>;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadb_from_10_5_returns_ids_with_the_insert() {
        for version in [
            "10.5.0-MariaDB",
            "10.11.19-MariaDB-0+deb12u1",
            "11.4.2-MariaDB",
        ] {
            assert_eq!(
                InsertIds::for_version(version),
                InsertIds::Returning,
                "{version}"
            );
        }
    }

    #[test]
    fn mysql_and_older_mariadb_ask_for_the_last_insert_id() {
        for version in [
            "8.0.36",
            "8.4.0-commercial",
            "10.4.32-MariaDB",
            "5.5.5-10.3.39-MariaDB",
            "",
        ] {
            assert_eq!(
                InsertIds::for_version(version),
                InsertIds::LastInsertId,
                "{version}"
            );
        }
    }
}
