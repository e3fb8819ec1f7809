//! A read that keeps what it read from changing until the transaction ends, so a step can
//! decide on it: `FOR UPDATE` on MySQL (also a read of the latest committed rows, whatever
//! the isolation level); nothing on SQLite, whose transaction already holds the one write
//! lock (`BEGIN IMMEDIATE`).

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::mysql::Mysql;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sqlite::Sqlite;

pub(crate) trait LockingRead: Backend {
    const SUFFIX: &'static str;
}

impl LockingRead for Mysql {
    const SUFFIX: &'static str = " FOR UPDATE";
}

impl LockingRead for Sqlite {
    const SUFFIX: &'static str = "";
}

/// `Q`, locking the rows it reads. Its statement is cached like `Q`'s.
#[derive(Debug, Clone, Copy, QueryId)]
pub(crate) struct Locked<Q>(pub(crate) Q);

impl<Q: Query> Query for Locked<Q> {
    type SqlType = Q::SqlType;
}

impl<DB: LockingRead, Q: QueryFragment<DB>> QueryFragment<DB> for Locked<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(DB::SUFFIX);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::prelude::*;

    use super::*;
    use crate::sql::schema::orders;

    #[test]
    fn mysql_locks_what_it_reads_and_sqlite_reads_as_it_is() {
        let read = Locked(
            orders::table
                .filter(orders::id.eq(1_i64))
                .select(orders::status),
        );
        let mysql = debug_query::<Mysql, _>(&read).to_string();
        assert!(
            mysql.contains("WHERE (`orders`.`id` = ?) FOR UPDATE"),
            "{mysql}"
        );
        let sqlite = debug_query::<Sqlite, _>(&read).to_string();
        assert!(sqlite.contains("WHERE (`orders`.`id` = ?) --"), "{sqlite}");
    }
}
