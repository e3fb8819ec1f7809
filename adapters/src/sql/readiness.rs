//! The readiness probe's port, for both stores.

use application::ports::{Readiness, StoreError};

use super::both_stores::for_both_stores;
use super::classify::Classify;
use super::connection::SqlConnection;

for_both_stores! {
    impl Readiness {
        async fn is_ready(&self) -> bool {
            self.with_connection("readiness probe", async |conn| select_one(conn).await)
                .await
                .is_ok()
        }
    }
}

/// One round trip that any answering server serves.
async fn select_one<C: SqlConnection>(conn: &mut C) -> Result<(), StoreError> {
    conn.batch_execute("SELECT 1")
        .await
        .map_err(<C::Backend as Classify>::store_error)
}
