//! The record of a run: every idempotent request a test sent and what came back, kept
//! from every client thread at once, with times relative to the history's start, so a
//! checker can tell which requests overlapped (`docs/testing.md#histories`).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

/// One idempotent request and its answer. Bodies are kept as digests only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    /// The service's operation name (`orders.create.v1`, `orders.cancel.v1`,
    /// `payments.capture.v1`, `payments.refund.v1`).
    pub operation: String,
    /// The token's tenant (0 when the token did not verify).
    pub tenant: u64,
    /// The token's actor (0 when the token did not verify).
    pub actor: u64,
    /// The `Idempotency-Key` sent.
    pub key: String,
    /// The request body's digest (`digest::request_digest`).
    pub request_digest: String,
    /// The status, `None` when no response arrived (a transport error).
    pub status: Option<u16>,
    /// The problem's `code`, if the answer was a problem.
    pub code: Option<String>,
    /// Whether `Idempotent-Replayed: true` was present.
    pub replayed: bool,
    /// The response body's SHA-256, when a response arrived.
    pub response_digest: Option<String>,
    /// The `Location` answered, if any (the created resource's path).
    pub location: Option<String>,
    /// When it was sent, in microseconds since the history's start.
    pub sent_us: u64,
    /// When its answer (or its transport error) came, in microseconds since the start.
    pub answered_us: u64,
}

impl Exchange {
    /// A success: a `2xx` answer.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// A success that is not marked as a replay: the key's one execution.
    #[must_use]
    pub fn is_original(&self) -> bool {
        self.succeeded() && !self.replayed
    }

    /// A success marked as a replay.
    #[must_use]
    pub fn is_replay(&self) -> bool {
        self.succeeded() && self.replayed
    }

    /// An answer that leaves the outcome open: no response, `503 outcome_unknown`, or
    /// another `5xx` (the request may have executed, or may still be executing).
    #[must_use]
    pub fn outcome_open(&self) -> bool {
        match self.status {
            None => true,
            Some(status) => status >= 500,
        }
    }

    /// The scope the service keys the request by: operation, tenant, actor, key.
    #[must_use]
    pub fn scope_key(&self) -> ScopeKey {
        ScopeKey {
            operation: self.operation.clone(),
            tenant: self.tenant,
            actor: self.actor,
            key: self.key.clone(),
        }
    }
}

/// `(operation, tenant, actor, key)`: what one idempotent execution belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ScopeKey {
    /// The operation name.
    pub operation: String,
    /// The tenant.
    pub tenant: u64,
    /// The actor.
    pub actor: u64,
    /// The idempotency key.
    pub key: String,
}

/// Every exchange of a run, kept as each answer came; cheap to clone and shared
/// by every client that records into it.
#[derive(Debug, Clone)]
pub struct History {
    start: Instant,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
}

impl Default for History {
    fn default() -> Self {
        Self::new()
    }
}

impl History {
    /// An empty history starting now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
            exchanges: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Microseconds since the history's start (monotonic).
    #[must_use]
    pub fn now_us(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Adds one exchange.
    pub fn push(&self, exchange: Exchange) {
        self.exchanges.lock().unwrap().push(exchange);
    }

    /// A copy of every exchange so far, in the order they were sent.
    #[must_use]
    pub fn exchanges(&self) -> Vec<Exchange> {
        let mut all = self.exchanges.lock().unwrap().clone();
        all.sort_by_key(|e| (e.sent_us, e.answered_us));
        all
    }

    /// A history of exactly these exchanges (for the checker's own tests).
    #[must_use]
    pub fn of(exchanges: Vec<Exchange>) -> Self {
        let history = Self::new();
        *history.exchanges.lock().unwrap() = exchanges;
        history
    }
}
