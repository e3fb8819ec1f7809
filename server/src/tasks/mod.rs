//! The long-running loops a process runs beside HTTP, or alone as a command.

mod census;
pub(crate) mod consume;
pub(crate) mod due_feed;
mod metrics_listener;
pub(crate) mod purge;
pub(crate) mod relay;
mod worker_report;
mod worker_spread;
pub(crate) mod workers;

use tokio::sync::watch;

/// Resolves once `stop` turns true, or when its sender is gone: the process is ending.
pub(crate) async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}
