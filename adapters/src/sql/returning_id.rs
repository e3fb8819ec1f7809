//! `INSERT ... RETURNING id` (SQLite; MariaDB 10.5+): the id comes back in the insert's
//! own round trip.

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::BigInt;

/// Keeps the insert's static query id, so MySQL prepares it once per connection.
pub(crate) struct ReturningId<I>(pub(crate) I);

impl<I: QueryId> QueryId for ReturningId<I> {
    type QueryId = ReturningId<I::QueryId>;
    const HAS_STATIC_QUERY_ID: bool = I::HAS_STATIC_QUERY_ID;
}

impl<DB: Backend, I: QueryFragment<DB>> QueryFragment<DB> for ReturningId<I> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(" RETURNING ");
        out.push_identifier("id")
    }
}

impl<I> Query for ReturningId<I> {
    type SqlType = BigInt;
}

/// Ids are positive, so a negative one reads as no row.
pub(crate) fn to_u64(id: i64) -> QueryResult<u64> {
    u64::try_from(id).map_err(|_| diesel::result::Error::NotFound)
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::prelude::*;
    use diesel::sqlite::Sqlite;

    use super::*;
    use crate::sql::schema::orders;

    #[test]
    fn the_id_is_asked_for_after_the_insert_on_both_backends() {
        let insert =
            || ReturningId(diesel::insert_into(orders::table).values(orders::quantity.eq(1_i16)));
        let expected = "INSERT INTO `orders` (`quantity`) VALUES (?) RETURNING `id` -- binds: [1]";
        assert_eq!(debug_query::<Mysql, _>(&insert()).to_string(), expected);
        assert_eq!(debug_query::<Sqlite, _>(&insert()).to_string(), expected);
    }
}
