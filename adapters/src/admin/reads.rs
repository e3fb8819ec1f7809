//! Loading every row of a query built at run time (a boxed query, whose backend is the
//! connection's).

use application::ports::StoreError;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::query_builder::{Query, QueryFragment, QueryId};
use diesel::query_dsl::CompatibleType;
use diesel_async::RunQueryDsl;

use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;

pub(crate) async fn load_rows<C, Q, Row, ST>(conn: &mut C, query: Q) -> Result<Vec<Row>, StoreError>
where
    C: SqlConnection,
    Q: Query + QueryFragment<C::Backend> + QueryId + Send,
    Q::SqlType: CompatibleType<Row, C::Backend, SqlType = ST>,
    C::Backend: QueryMetadata<Q::SqlType>,
    Row: FromSqlRow<ST, C::Backend> + Send + 'static,
    ST: 'static,
{
    query.load(conn).await.map_err(C::Backend::store_error)
}
