//! How many operations are in each state, for both stores: one grouped read (the
//! `(state, next_attempt_at)` index covers it).

use application::ports::{OperationCensus, StoreError};
use diesel::deserialize::FromSqlRow;
use diesel::dsl;
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use domain::OperationState;

use crate::sql::bad_value::bad;
use crate::sql::both_stores::for_both_stores;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::schema::operations;

#[dsl::auto_type]
fn by_state() -> _ {
    operations::table
        .group_by(operations::state)
        .select((operations::state, dsl::count_star()))
}

/// A state the domain does not know is a corrupt row: an error, never left out.
async fn count_by_state<C>(conn: &mut C) -> Result<Vec<(OperationState, u64)>, StoreError>
where
    C: SqlConnection,
    by_state: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(Text, BigInt)>,
    (String, i64): FromSqlRow<(Text, BigInt), C::Backend>,
{
    let rows: Vec<(String, i64)> = by_state()
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    rows.into_iter()
        .map(|(state, count)| {
            let state = OperationState::from_stored(&state).map_err(bad("operations", "state"))?;
            Ok((state, u64::try_from(count).unwrap_or(0)))
        })
        .collect()
}

for_both_stores! {
    impl OperationCensus {
        async fn count_by_state(&self) -> Result<Vec<(OperationState, u64)>, StoreError> {
            self.with_connection("operation census", async |conn| {
                count_by_state(conn).await
            })
            .await
        }
    }
}
