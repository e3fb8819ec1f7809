//! The admin surface (`docs/admin.md`): its store on both stores, its HTTP routes, and
//! the parameter checks the command line shares with them.

mod audit_rows;
pub(crate) mod http;
mod operation_rows;
mod reads;
mod store;
pub mod ui;
mod writes;

pub use crate::leased::parse_operation_id;
pub use http::{BadParameters, OperationsQuery, audit_query, key_query, operations_query};
