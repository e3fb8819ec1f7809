//! Orders: creating one per key, and reading them back.

mod create;
mod order;
mod read;

pub use create::{CreateOrder, CreateRefusal, OrderRepository};
pub use order::Order;
pub(crate) use order::OrderBody;
#[cfg(test)]
pub(crate) use order::sample_order;
pub use read::{OrderReader, ReadOrder};
