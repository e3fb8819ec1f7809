//! `payments.capture.v1`: the long-running operation of contract §7. Its acceptance is an
//! idempotent operation like any other; its work is done by the worker, under a lease.

mod capture;
mod worker;

pub use capture::{CapturePayment, PAYMENTS_CREATE, operation_location};
pub use worker::{Step, Worked, WorkerPorts, WorkerSettings, work_once};
