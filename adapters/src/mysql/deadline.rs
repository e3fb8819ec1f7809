//! Deadlines on database calls (contract §4): a database that stops answering, without a
//! reset or a reply, holds no call longer than `DATABASE_TIMEOUT_SECS`. A call past its
//! deadline leaves its connection in an unknown state: the caller discards it.

use std::future::Future;

use application::ports::StoreError;
use tokio::time::{Instant, timeout_at};

/// Runs `work` until `deadline`. Past it, logs which statement ran out of time (inside
/// the request's span, so with its request id; never a value) and fails with
/// [`StoreError::Timeout`]. The caller must discard the connection `work` used.
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

/// The error of a call whose deadline passed, logged once.
pub(super) fn timed_out(statement: &'static str) -> StoreError {
    tracing::warn!(
        statement,
        "database deadline passed; the connection is discarded"
    );
    StoreError::Timeout
}
