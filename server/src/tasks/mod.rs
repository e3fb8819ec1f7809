//! The long-running loops a process runs beside HTTP, or alone as a command.

pub(crate) mod capture;
mod capture_report;
mod capture_spread;
mod census;
pub(crate) mod consume;
pub(crate) mod purge;
pub(crate) mod relay;

use tokio::sync::watch;

/// Resolves once `stop` turns true, or when its sender is gone: the process is ending.
pub(crate) async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}
