//! The `operations_in_state` gauge: read from the database by the process that runs the
//! capture workers, at start and then every [`CENSUS_EVERY`], so an operation waiting for
//! a person shows however long ago it got there (`docs/http-api.md#metrics`).

use std::sync::Arc;
use std::time::Duration;

use adapters::metrics::Metrics;
use application::ErrorChain;
use application::ports::OperationCensus;
use tokio::sync::watch;

use crate::tasks::stopped;

/// Often enough for an alert evaluated every 30 s; one grouped index read each time.
const CENSUS_EVERY: Duration = Duration::from_secs(10);

/// Counts until `stop` turns true; a failed read keeps the last figures and is logged.
pub(crate) async fn run_census<S: OperationCensus>(
    store: S,
    metrics: Arc<Metrics>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        match store.count_by_state().await {
            Ok(counts) => metrics.set_operations_in_state(&counts),
            Err(error) => {
                tracing::warn!(error = %ErrorChain(&error), "cannot count the operations by state");
            }
        }
        tokio::select! {
            () = tokio::time::sleep(CENSUS_EVERY) => {}
            () = stopped(&mut stop) => break,
        }
    }
}
