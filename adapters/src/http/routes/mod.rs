//! Every route the service serves, listed once: registered with actix and described in
//! the OpenAPI document from this list alone. Adding an operation adds its line to
//! [`served!`] below and its port to [`OperationsTx`] in `store.rs` (README, "Adding an
//! operation").

mod document;
mod idempotent_post;
mod probes;
mod read_one;
mod served;
pub(crate) mod state;
pub(crate) mod store;

use application::orders::CancelOrder;
use application::payments::{CapturePayment, ReadOperation};
use application::{CreateOrder, ReadOrder};

pub use document::openapi_document;
use probes::{healthz, metrics, readyz};
use served::served;
pub use state::AppState;
pub use store::{OperationsTx, ServiceStore};

served! {
    post CreateOrder,
    get ReadOrder,
    post CapturePayment,
    get ReadOperation,
    post CancelOrder,
}
