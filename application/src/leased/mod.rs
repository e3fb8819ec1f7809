//! Leased operations (`docs/long-running-operations.md`): accepted at once, carried out by a
//! worker under a lease, read and resolved whatever their kind. A kind is one module of its
//! feature (`payments.capture.v1`: `payments/capture.rs`); this is what all kinds share.

mod acceptance;
mod calls;
mod ends;
mod forwarding;
mod kinds;
mod members;
mod operation;
mod ports;
mod read;
mod recorded;
mod worked;
mod worker;
mod worker_kinds;
mod worker_ports;

pub use acceptance::{Accepted, NewOperation};
pub use forwarding::{Calls, Records};
pub use kinds::LeasedKinds;
pub use members::{Members, NotAnObject};
pub use operation::{
    CallNames, CallOut, Definite, Ended, EndedAs, LeasedOperation, NoAnswer, ProviderAnswer,
    RecordOutcome, Work,
};
pub use ports::{Claim, DueOperation, Ending, OperationCensus, OperationEnd, OperationStore};
pub use read::{OperationReader, OperationView, ReadOperation, StatusBody};
pub use recorded::{BoxFuture, RecordEnd, RecordOf, StoredEnd, UnreadableInput, decode_job, shown};
pub use worked::{Step, Worked};
pub use worker::{work_group, work_once};
pub use worker_kinds::WorkerKinds;
pub use worker_ports::{CallObserver, Unobserved, WorkerPorts, WorkerSettings};
