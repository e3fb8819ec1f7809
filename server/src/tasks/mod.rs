//! The long-running loops a process runs beside HTTP, or alone as a command.

pub(crate) mod capture;
mod capture_report;
mod capture_spread;
mod census;
pub(crate) mod consume;
pub(crate) mod purge;
pub(crate) mod relay;
