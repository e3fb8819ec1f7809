//! Payment captures over HTTP and SQL: the acceptance and the status read. The worker's
//! SQL is in `crate::sql` (`operations`, `due_operations`, `operation_store`).

mod capture;
pub(crate) mod read;
pub(crate) mod read_sql;

pub use capture::{CaptureBody, decode_capture_body};
