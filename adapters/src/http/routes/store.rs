//! What a store must offer to be served: the ports of the reads, the admin and the one
//! transaction every served operation writes through.

use application::admin::AdminStore;
use application::orders::OrderCancellations;
use application::ports::{
    OperationReader, OperationWriter, OrderReader, OrderRepository, OutboxWriter, Readiness,
    RecordReader, UnitOfWork,
};

/// The transaction every served operation writes through: one port per operation.
pub trait OperationsTx:
    OrderRepository + OutboxWriter + OperationWriter + OrderCancellations
{
}

impl<T: OrderRepository + OutboxWriter + OperationWriter + OrderCancellations> OperationsTx for T {}

/// Implemented for every type that has the ports, so a new store needs no code here.
pub trait ServiceStore:
    UnitOfWork<Tx: OperationsTx>
    + RecordReader
    + OrderReader
    + OperationReader
    + AdminStore
    + Readiness
    + Clone
    + 'static
{
}

impl<T> ServiceStore for T where
    T: UnitOfWork<Tx: OperationsTx>
        + RecordReader
        + OrderReader
        + OperationReader
        + AdminStore
        + Readiness
        + Clone
        + 'static
{
}
