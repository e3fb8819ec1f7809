//! Orders: creating one per key, cancelling one, and reading them back.

mod cancel;
mod create;
mod locks;
mod order;
mod read;

pub use cancel::{
    CancelOrder, CancelRefusal, ORDERS_CANCELLED, OrderCancellation, OrderCancellations,
};
pub use create::{CreateOrder, CreateRefusal, ORDERS_CREATED, OrderRepository, order_created};
pub use locks::{FoundOrder, LockedOrder, OrderLocks, first_members, lock_with_captures};
#[cfg(test)]
pub(crate) use order::sample_order;
pub use order::{Order, OrderDocument};
pub use read::{OrderReader, ReadOrder};
