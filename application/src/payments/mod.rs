//! `payments.capture.v1`: the long-running operation of contract §7.

mod worker;

pub use worker::{Worked, WorkerPorts, WorkerSettings, work_once};
