//! What every handler shares: the coordinator, the store, the token keys and the metrics.

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;

use application::Coordinator;
use application::leased::LeasedKinds;
use application::ports::{FlowHooks, UnitOfWork};

use crate::http::edge::auth::TokenVerifier;
use crate::http::edge::refusal_form::ProblemForms;
use crate::metrics::Metrics;

pub struct AppState<S: UnitOfWork, H> {
    pub(crate) coordinator: Coordinator<S, S, H, ProblemForms>,
    pub(crate) store: S,
    /// The leased kinds served, for the admin's resolve.
    pub(crate) kinds: Arc<LeasedKinds<S::Tx>>,
    pub(crate) keys: TokenVerifier,
    pub(crate) metrics: Arc<Metrics>,
    /// How long a request body may take to arrive (`REQUEST_BODY_TIMEOUT_SECS`).
    pub(crate) body_timeout: Duration,
    /// How long the provider keeps a key: an operator's retry is refused past it.
    pub(crate) key_retention: TimeDelta,
}

impl<S: UnitOfWork, H> std::fmt::Debug for AppState<S, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("coordinator", &self.coordinator)
            .finish_non_exhaustive()
    }
}

impl<S: UnitOfWork, H: FlowHooks + 'static> AppState<S, H> {
    /// One per HTTP worker, with its own store (connection pool): requests and their
    /// connections stay on the worker's runtime, with no hand-over between threads.
    pub fn new(
        coordinator: Coordinator<S, S, H, ProblemForms>,
        store: S,
        kinds: Arc<LeasedKinds<S::Tx>>,
        keys: TokenVerifier,
        metrics: Arc<Metrics>,
        body_timeout: Duration,
        key_retention: TimeDelta,
    ) -> Self {
        Self {
            coordinator,
            store,
            kinds,
            keys,
            metrics,
            body_timeout,
            key_retention,
        }
    }
}
