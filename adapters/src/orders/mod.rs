//! Orders over HTTP and SQL: the create, the cancel and the read, the locking reads an
//! operation on an existing order decides on, and the revision other operations' events
//! about an order are sequenced by.

mod cancel;
mod create;
mod locks;
mod read;
mod read_sql;
mod revision;

pub use create::decode_new_order;
pub(crate) use locks::{all_written, order_pairs};
pub(crate) use read::{ORDER_ID, order_in_path};
pub(crate) use read_sql::push_tenants_active_order;
pub(crate) use revision::{TakeActiveOrder, TakeActiveOrders};
