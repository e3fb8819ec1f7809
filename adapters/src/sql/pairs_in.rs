//! `((a = ? AND b = ?) OR (a = ? AND b = ?) ...)`: rows by pairs of keys, as one range of an
//! index on `(a, b)` per pair. Diesel's `IN (?, ?)` marks its statement uncacheable (MySQL
//! then prepares and closes it on every execution); this text depends only on the number of
//! pairs, so each count is prepared once per connection and found again by its text.

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, ValidGrouping, is_aggregate};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, HasSqlType};

/// `a` is a `BIGINT` column; `b` any column, its values `W` (an id, or bytes such as a
/// `clientOrderRef`).
#[derive(Debug, Clone)]
pub(crate) struct PairsIn<A, B, W = i64> {
    a: A,
    b: B,
    pairs: Vec<(i64, W)>,
}

impl<A, B, W> PairsIn<A, B, W> {
    pub(crate) fn new(a: A, b: B, pairs: Vec<(i64, W)>) -> Self {
        Self { a, b, pairs }
    }
}

impl<A, B, W> Expression for PairsIn<A, B, W> {
    type SqlType = Bool;
}

impl<A: AppearsOnTable<QS>, B: AppearsOnTable<QS>, QS, W> AppearsOnTable<QS> for PairsIn<A, B, W> {}

impl<A, B, W, GroupBy> ValidGrouping<GroupBy> for PairsIn<A, B, W> {
    type IsAggregate = is_aggregate::Never;
}

impl<A, B, W> QueryId for PairsIn<A, B, W> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB, A, B, W> QueryFragment<DB> for PairsIn<A, B, W>
where
    DB: Backend + HasSqlType<B::SqlType>,
    A: QueryFragment<DB>,
    B: QueryFragment<DB> + Expression,
    i64: ToSql<BigInt, DB>,
    W: ToSql<B::SqlType, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        if self.pairs.is_empty() {
            out.push_sql("1 = 0");
            return Ok(());
        }
        out.push_sql("(");
        for (n, (a, b)) in self.pairs.iter().enumerate() {
            if n > 0 {
                out.push_sql(" OR ");
            }
            out.push_sql("(");
            self.a.walk_ast(out.reborrow())?;
            out.push_sql(" = ");
            out.push_bind_param::<BigInt, _>(a)?;
            out.push_sql(" AND ");
            self.b.walk_ast(out.reborrow())?;
            out.push_sql(" = ");
            out.push_bind_param::<B::SqlType, _>(b)?;
            out.push_sql(")");
        }
        out.push_sql(")");
        Ok(())
    }
}

/// For each of `wanted`, in its order, its row among `rows` (which come back in the index's
/// order, without the pairs that had none) read by `convert`, or `None`.
pub(crate) fn in_wanted_order<R, T, E>(
    wanted: &[(i64, i64)],
    rows: &[R],
    pair: impl Fn(&R) -> (i64, i64),
    convert: impl Fn(&R) -> Result<T, E>,
) -> Result<Vec<Option<T>>, E> {
    wanted
        .iter()
        .map(|wanted| {
            rows.iter()
                .find(|row| pair(row) == *wanted)
                .map(&convert)
                .transpose()
        })
        .collect()
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
    fn each_pair_is_one_range_and_the_statement_stays_cacheable() {
        let query = || {
            orders::table
                .filter(PairsIn::new(
                    orders::id,
                    orders::tenant_id,
                    vec![(9, 1), (10, 2)],
                ))
                .select(orders::id)
        };
        let text = debug_query::<Sqlite, _>(&query()).to_string();
        assert!(
            text.contains(
                "WHERE ((`orders`.`id` = ? AND `orders`.`tenant_id` = ?) OR \
                 (`orders`.`id` = ? AND `orders`.`tenant_id` = ?))"
            ),
            "{text}"
        );
        assert!(QueryFragment::<Mysql>::is_safe_to_cache_prepared(&query(), &Mysql).unwrap());
    }
}
