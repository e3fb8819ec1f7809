//! A statement's SQL text rendered once per type and thread, then reused.
//!
//! diesel-async's MySQL connection renders every statement's text on every execution,
//! even when its prepared statement is cached by type and the text goes unused (diesel's
//! own connections render only on a cache miss): about 50 000 instructions of a create's
//! 137 000 in its transaction. Rendering once saves 17 000 of them, since the check that
//! a statement is safe to cache still walks it
//! (`docs/performance.md#a-statements-text-rendered-once-2026-12-02-on-be888e3`).
//!
//! Reusing the text is exactly as sound as diesel's statement cache: a type with a static
//! query id whose values leave it safe to cache renders the same text whatever its values
//! (that is what lets the cache hand back a prepared statement by type alone). Any other
//! statement is rendered as usual.

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryBuilder, QueryFragment, QueryId};

thread_local! {
    /// By the statement's query id and backend; as many entries as statement types.
    static TEXTS: RefCell<HashMap<(TypeId, TypeId), Box<str>>> = RefCell::new(HashMap::new());
}

/// `Q`, with its text rendered once.
pub(crate) struct RenderedOnce<Q>(pub(crate) Q);

impl<Q: QueryId> QueryId for RenderedOnce<Q> {
    type QueryId = Q::QueryId;
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query> Query for RenderedOnce<Q> {
    type SqlType = Q::SqlType;
}

impl<DB, Q> QueryFragment<DB> for RenderedOnce<Q>
where
    DB: Backend + 'static,
    DB::QueryBuilder: Default,
    Q: QueryFragment<DB> + QueryId,
{
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    // Overrides a method diesel documents for connection and backend authors only; the
    // lock file pins diesel, and a changed signature fails the build rather than the run.
    fn to_sql(&self, out: &mut DB::QueryBuilder, backend: &DB) -> QueryResult<()> {
        let Some(key) = Q::query_id() else {
            return self.0.to_sql(out, backend);
        };
        if !self.0.is_safe_to_cache_prepared(backend)? {
            return self.0.to_sql(out, backend);
        }
        let key = (key, TypeId::of::<DB>());
        let cached =
            TEXTS.with_borrow(|texts| texts.get(&key).map(|text| out.push_sql(text)).is_some());
        if !cached {
            let mut own = DB::QueryBuilder::default();
            self.0.to_sql(&mut own, backend)?;
            let text = own.finish();
            out.push_sql(&text);
            TEXTS.with_borrow_mut(|texts| texts.insert(key, text.into_boxed_str()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::prelude::*;
    use diesel::sqlite::Sqlite;

    use super::*;
    use crate::sql::schema::orders;

    /// Without the binds diesel appends after the text.
    fn text<DB, Q>(query: &Q) -> String
    where
        DB: Backend + Default,
        DB::QueryBuilder: Default,
        Q: QueryFragment<DB>,
    {
        let shown = debug_query::<DB, _>(query).to_string();
        shown
            .split(" -- binds: ")
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    #[test]
    fn the_text_is_the_statements_own_on_each_backend_first_and_again() {
        let insert = |quantity: i16| {
            RenderedOnce(diesel::insert_into(orders::table).values(orders::quantity.eq(quantity)))
        };
        let expected = "INSERT INTO `orders` (`quantity`) VALUES (?)";
        for quantity in [1, 2, 3] {
            assert_eq!(text::<Mysql, _>(&insert(quantity)), expected);
            assert_eq!(text::<Sqlite, _>(&insert(quantity)), expected);
        }
    }

    /// A static query id whose text still depends on the value, as diesel's `IN (?, ?)`
    /// lists are: such a node says it is unsafe to cache.
    struct Placeholders(usize);

    impl QueryId for Placeholders {
        type QueryId = Self;
        const HAS_STATIC_QUERY_ID: bool = true;
    }

    impl<DB: Backend> QueryFragment<DB> for Placeholders {
        fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
            out.unsafe_to_cache_prepared();
            out.push_sql("SELECT ");
            out.push_sql(&vec!["?"; self.0].join(", "));
            Ok(())
        }
    }

    #[test]
    fn a_statement_whose_text_depends_on_its_values_is_rendered_each_time() {
        for _ in 0..2 {
            assert_eq!(text::<Mysql, _>(&RenderedOnce(Placeholders(1))), "SELECT ?");
            assert_eq!(
                text::<Mysql, _>(&RenderedOnce(Placeholders(3))),
                "SELECT ?, ?, ?"
            );
        }
    }
}
