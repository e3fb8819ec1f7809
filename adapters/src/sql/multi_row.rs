//! Multi-row statements of a batch (`docs/storage.md#batched-operations`), kept in the
//! connection's statement cache: their text depends only on how many rows they carry, so
//! each size is prepared once per connection, by its text.

use std::marker::PhantomData;

use diesel::Insertable;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId, ValuesClause};

/// `INSERT INTO <table> (<columns>) VALUES (...), (...)`: diesel writes a many-row insert
/// on MySQL only, and marks it uncacheable; this is the same text on both stores.
pub(crate) struct MultiValues<C> {
    table: &'static str,
    rows: Vec<C>,
}

impl<C> MultiValues<C> {
    /// `C` is what diesel's `Insertable` makes of a row: its `ValuesClause`.
    pub(crate) fn new<R, Tab>(table: &'static str, rows: Vec<R>) -> Self
    where
        R: Insertable<Tab, Values = C>,
    {
        Self {
            table,
            rows: rows.into_iter().map(Insertable::values).collect(),
        }
    }
}

impl<C> QueryId for MultiValues<C> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB, Tab, V> QueryFragment<DB> for MultiValues<ValuesClause<V, Tab>>
where
    DB: Backend,
    ValuesClause<V, Tab>: QueryFragment<DB>,
    V: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("INSERT INTO ");
        out.push_identifier(self.table)?;
        out.push_sql(" ");
        let mut rows = self.rows.iter();
        if let Some(first) = rows.next() {
            first.walk_ast(out.reborrow())?;
        }
        for row in rows {
            out.push_sql(", (");
            row.values.walk_ast(out.reborrow())?;
            out.push_sql(")");
        }
        Ok(())
    }
}

/// `<insert> RETURNING <columns>` (SQLite; MariaDB 10.5+), read as rows of `ST`. The rows
/// come back in no promised order: each names the member it belongs to by its unique key.
pub(crate) struct Returning<I, ST> {
    insert: I,
    columns: &'static [&'static str],
    row: PhantomData<ST>,
}

impl<I, ST> Returning<I, ST> {
    pub(crate) fn new(insert: I, columns: &'static [&'static str]) -> Self {
        Self {
            insert,
            columns,
            row: PhantomData,
        }
    }
}

impl<I, ST> QueryId for Returning<I, ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<I, ST: 'static> Query for Returning<I, ST> {
    type SqlType = ST;
}

impl<DB: Backend, I: QueryFragment<DB>, ST> QueryFragment<DB> for Returning<I, ST> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.insert.walk_ast(out.reborrow())?;
        out.push_sql(" RETURNING ");
        for (n, column) in self.columns.iter().enumerate() {
            if n > 0 {
                out.push_sql(", ");
            }
            out.push_identifier(column)?;
        }
        Ok(())
    }

    fn is_safe_to_cache_prepared(&self, _: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

/// The returned rows' ids in the members' order: `RETURNING` promises no order, so each
/// member finds its row by its unique key (`same`). `None` when a member has no row, or its
/// row's id is not positive.
pub(crate) fn ids_in_order<M, K>(
    members: &[M],
    returned: &[(i64, K)],
    same: impl Fn(&M, &K) -> bool,
) -> Option<Vec<u64>> {
    members
        .iter()
        .map(|member| {
            let (id, _) = returned.iter().find(|(_, key)| same(member, key))?;
            u64::try_from(*id).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::prelude::*;
    use diesel::sql_types::BigInt;
    use diesel::sqlite::Sqlite;

    use super::*;
    use crate::sql::schema::orders;

    #[test]
    fn many_rows_make_one_statement_with_its_returning_clause_on_both_backends() {
        let insert = || {
            let rows = vec![orders::quantity.eq(1_i16), orders::quantity.eq(2_i16)];
            Returning::<_, BigInt>::new(MultiValues::new("orders", rows), &["id"])
        };
        let expected =
            "INSERT INTO `orders` (`quantity`) VALUES (?), (?) RETURNING `id` -- binds: [1, 2]";
        assert_eq!(debug_query::<Mysql, _>(&insert()).to_string(), expected);
        assert_eq!(debug_query::<Sqlite, _>(&insert()).to_string(), expected);
        assert!(insert().is_safe_to_cache_prepared(&Mysql).unwrap());
    }

    #[test]
    fn returned_ids_follow_the_members_whatever_order_the_rows_came_in() {
        let returned = [(9, "b"), (7, "a")];
        let same = |member: &&str, key: &&str| member == key;
        assert_eq!(ids_in_order(&["a", "b"], &returned, same), Some(vec![7, 9]));
        assert_eq!(ids_in_order(&["a", "c"], &returned, same), None, "no row");
        assert_eq!(ids_in_order(&["a"], &[(-1, "a")], same), None, "not an id");
    }
}
