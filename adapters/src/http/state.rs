//! What every handler shares: the coordinator, the store, the token keys and the metrics.

use std::sync::Arc;

use application::payments::CapturePayment;
use application::ports::{
    FlowHooks, OperationReader, OperationWriter, OrderReader, OrderRepository, OutboxWriter,
    Readiness, RecordReader, UnitOfWork,
};
use application::{Coordinator, CreateOrder};

use super::auth::TokenKeys;
use super::metrics::Metrics;

/// Everything a store must offer the HTTP edge. Implemented for every type that has the
/// ports, so a new store needs no code here.
pub trait ServiceStore:
    UnitOfWork<Tx: OrderRepository + OutboxWriter + OperationWriter>
    + RecordReader
    + OrderReader
    + OperationReader
    + Readiness
    + Clone
    + 'static
{
}

impl<T> ServiceStore for T where
    T: UnitOfWork<Tx: OrderRepository + OutboxWriter + OperationWriter>
        + RecordReader
        + OrderReader
        + OperationReader
        + Readiness
        + Clone
        + 'static
{
}

/// The shared state behind every route.
pub struct AppState<S, H> {
    pub(super) coordinator: Coordinator<S, S, H>,
    pub(super) create_order: CreateOrder,
    pub(super) capture_payment: CapturePayment,
    pub(super) store: S,
    pub(super) keys: TokenKeys,
    pub(super) metrics: Arc<Metrics>,
}

impl<S, H> std::fmt::Debug for AppState<S, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("coordinator", &self.coordinator)
            .finish_non_exhaustive()
    }
}

impl<S: ServiceStore, H: FlowHooks + 'static> AppState<S, H> {
    /// State for the routes of one HTTP worker.
    ///
    /// Each worker has its own state and store (its own connection pool): requests run on
    /// the worker that received them and their connections live on its runtime, with no
    /// hand-over between threads on the request path. Metrics are shared.
    pub fn new(
        coordinator: Coordinator<S, S, H>,
        store: S,
        keys: TokenKeys,
        metrics: Arc<Metrics>,
    ) -> Self {
        Self {
            coordinator,
            create_order: CreateOrder::default(),
            capture_payment: CapturePayment::default(),
            store,
            keys,
            metrics,
        }
    }
}
