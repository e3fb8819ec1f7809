//! How an insert learns the id it made: in the same round trip where the server can say
//! it (`INSERT ... RETURNING`, MariaDB 10.5+), else with `SELECT LAST_INSERT_ID()` on the
//! same connection (MySQL, which has no `RETURNING`).

use diesel::QueryResult;
use diesel::mysql::Mysql;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::BigInt;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

/// Which way this server gives insert ids back; learnt once per store, at its first
/// connection, from the server's version string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertIds {
    /// `INSERT ... RETURNING id`: one round trip per insert.
    Returning,
    /// The insert, then `SELECT LAST_INSERT_ID()`: two.
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

/// Runs `insert` (a single-row insert into a table whose key is `id`) and returns the id
/// it made.
pub(super) async fn insert_returning_id<I>(
    conn: &mut AsyncMysqlConnection,
    ids: InsertIds,
    insert: I,
) -> QueryResult<u64>
where
    I: QueryFragment<Mysql> + QueryId + Send,
{
    match ids {
        InsertIds::Returning => {
            let id: i64 = ReturningId(insert).get_result(conn).await?;
            u64::try_from(id).map_err(|_| diesel::result::Error::NotFound)
        }
        InsertIds::LastInsertId => {
            insert.execute(conn).await?;
            diesel::select(sql::last_insert_id()).get_result(conn).await
        }
    }
}

mod sql {
    diesel::define_sql_function! {
        /// MySQL's `LAST_INSERT_ID()`: the id the last insert on this connection made.
        fn last_insert_id() -> Unsigned<BigInt>;
    }
}

/// `<insert> RETURNING id`, cached like the insert it wraps (same static query id, marked
/// as its own).
struct ReturningId<I>(I);

impl<I: QueryId> QueryId for ReturningId<I> {
    type QueryId = ReturningId<I::QueryId>;
    const HAS_STATIC_QUERY_ID: bool = I::HAS_STATIC_QUERY_ID;
}

impl<I: QueryFragment<Mysql>> QueryFragment<Mysql> for ReturningId<I> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Mysql>) -> QueryResult<()> {
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(" RETURNING `id`");
        Ok(())
    }
}

impl<I> Query for ReturningId<I> {
    type SqlType = BigInt;
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
