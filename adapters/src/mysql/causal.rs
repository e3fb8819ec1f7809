//! Causal reads on Galera: `SET STATEMENT wsrep_sync_wait = 1 FOR <select>` applies every
//! write set committed in the cluster first (without it, 12-32% of reads right after a
//! commit on another node missed the row). Only that statement waits.

use diesel::QueryResult;
use diesel::mysql::Mysql;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// A static query id of its own: prepared once per connection, like the plain read.
#[derive(Debug, Clone, Copy, QueryId)]
pub(super) struct CausalRead<Q>(pub(super) Q);

impl<Q: Query> Query for CausalRead<Q> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryFragment<Mysql>> QueryFragment<Mysql> for CausalRead<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Mysql>) -> QueryResult<()> {
        out.push_sql("SET STATEMENT wsrep_sync_wait = 1 FOR ");
        self.0.walk_ast(out.reborrow())
    }
}
