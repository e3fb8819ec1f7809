//! Leased operations of every kind over SQL and HTTP (`docs/long-running-operations.md`):
//! the acceptance's row, the worker's conditional writes and due read, the census, and the
//! status read with its route. A kind's own SQL and route live in its feature's folder.

mod accept;
mod census;
mod claims;
mod due;
pub(crate) mod fenced;
mod members;
pub(crate) mod read;
mod read_sql;
mod store;

pub(crate) use accept::{
    InsertOperation, InsertOperations, InsertTrace, InsertTraces, insert_operation,
    insert_operations,
};
pub(crate) use members::stored_members;
pub use read::parse_operation_id;
pub(crate) use store::record_end;
