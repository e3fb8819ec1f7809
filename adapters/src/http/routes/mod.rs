//! Every route the service serves, listed once: registered with actix and described in
//! the OpenAPI document from this list alone. Adding an operation adds its line to
//! [`served!`] below and its port to [`OperationsTx`] (README, "Adding an operation").

mod document;
mod idempotent_post;
mod probes;
mod read_one;
mod served;
mod state;

use application::admin::AdminStore;
use application::orders::{CancelOrder, OrderCancellations};
use application::payments::{CapturePayment, ReadOperation};
use application::ports::{
    OperationReader, OperationWriter, OrderReader, OrderRepository, OutboxWriter, Readiness,
    RecordReader, UnitOfWork,
};
use application::{CreateOrder, ReadOrder};

pub use document::openapi_document;
use probes::{healthz, metrics, readyz};
use served::served;
pub use state::AppState;

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

served! {
    post CreateOrder,
    get ReadOrder,
    post CapturePayment,
    get ReadOperation,
    post CancelOrder,
}
