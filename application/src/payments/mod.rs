//! `payments.capture.v1`: the long-running operation of contract §7. Its acceptance is an
//! idempotent operation like any other; its work is done by the worker, under a lease.

mod capture;
mod worked;
mod worker;

pub use capture::{CapturePayment, PAYMENTS_CREATE, operation_location};
pub use worked::{Step, Worked};
pub use worker::{WorkerPorts, WorkerSettings, work_once};
