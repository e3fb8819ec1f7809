//! Deadlines on database calls (`docs/http-api.md#deadlines`): a silent database holds no
//! call past `DATABASE_TIMEOUT_SECS`.

use std::future::Future;

use application::ports::StoreError;
use tokio::time::{Instant, timeout_at};

/// Past `deadline`, logs the statement (in the request's span; never a value) and fails
/// with [`StoreError::Timeout`]. The caller must discard the connection `work` used.
pub(super) async fn bounded<T, E: From<StoreError>>(
    deadline: Instant,
    statement: &'static str,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    match timeout_at(deadline, work).await {
        Ok(result) => result,
        Err(_elapsed) => Err(timed_out(statement).into()),
    }
}

/// The error of a call past its deadline, logged here once.
pub(super) fn timed_out(statement: &'static str) -> StoreError {
    tracing::warn!(
        statement,
        "database deadline passed; the connection is discarded"
    );
    StoreError::Timeout
}
