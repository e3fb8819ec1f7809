//! Orders over HTTP and SQL: the create, the cancel and the read.

mod cancel;
mod create;
mod read;
mod read_sql;

pub use create::decode_new_order;
pub(crate) use read::{ORDER_ID, order_in_path};
pub(crate) use read_sql::push_tenants_active_order;
