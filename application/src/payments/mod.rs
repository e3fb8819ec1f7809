//! `payments.capture.v1`, a long-running operation (`docs/long-running-operations.md`).

mod capture;
mod ports;
mod read;
mod worked;
mod worker;

pub use capture::{CapturePayment, CaptureRefusal, NewCapture, OperationWriter};
pub use ports::{
    Charge, DueOperation, Ending, NoAnswer, OperationCensus, OperationStore, PaymentProvider,
    ProviderAnswer,
};
pub use read::{OperationReader, OperationView, PaymentView, ReadOperation};
pub use worked::{Step, Worked};
pub use worker::{WorkerPorts, WorkerSettings, work_once};
