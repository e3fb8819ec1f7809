//! One transaction per request; a duplicate is resolved by a fresh read outside it. What
//! the process keeps in memory (completed records, same-key waits) is looked at first.

mod attempt;
mod batch_transaction;
mod batched;
mod existing;
mod lead;
mod retry_pause;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use domain::{Fingerprint, Fingerprinted, IdempotencyKey, RetentionPolicy, Scope};
use futures_util::future::{Either, select};

use super::batching::Batching;
use super::in_flight::{InFlight, Role, landing};
use super::operation::{IdempotentOperation, NoRefusalForms, RefusalForms, Steps};
use super::outcome::Outcome;
use super::replay_cache::ReplayCache;

use crate::Caller;
use crate::ports::{
    Clock, FlowHooks, NoHooks, PermissionAuthorizer, RecordReader, ReplayAuthorizer, UnitOfWork,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoordinatorSettings {
    pub retention: RetentionPolicy,
    /// Runs of a deadlocked transaction; safe, as the server rolled all of it back.
    pub max_attempts: u32,
    /// How long a request waits for another one with its key in this process, as it would
    /// on the database's lock (`LOCK_WAIT_TIMEOUT_SECS`); then it is told "in progress".
    pub same_key_wait: Duration,
}

impl Default for CoordinatorSettings {
    fn default() -> Self {
        Self {
            retention: RetentionPolicy::default(),
            max_attempts: 3,
            same_key_wait: Duration::from_secs(5),
        }
    }
}

/// The unique index on the scope key alone decides who runs first, so any number of
/// processes may share one database. What is kept in memory (completed records, same-key
/// waits) only saves reads and lock waits; both are off unless given. `F` gives a stored
/// refusal its form.
pub struct Coordinator<U, R, H = NoHooks, F = NoRefusalForms> {
    unit_of_work: U,
    reader: R,
    hooks: H,
    forms: F,
    clock: Arc<dyn Clock>,
    authorizer: Arc<dyn ReplayAuthorizer>,
    settings: CoordinatorSettings,
    deadlocks: Arc<AtomicU64>,
    replay_cache: Option<Arc<ReplayCache>>,
    in_flight: Option<Arc<InFlight>>,
    batching: Option<Arc<Batching>>,
}

impl<U, R, H, F> std::fmt::Debug for Coordinator<U, R, H, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl<U, R, H, F> Coordinator<U, R, H, F> {
    /// For the admin's eviction, which drops its key's copy at once.
    pub fn replay_cache(&self) -> Option<&ReplayCache> {
        self.replay_cache.as_deref()
    }
}

impl<U: UnitOfWork, R: RecordReader> Coordinator<U, R> {
    pub fn new(
        unit_of_work: U,
        reader: R,
        clock: Arc<dyn Clock>,
        settings: CoordinatorSettings,
    ) -> Self {
        Self {
            unit_of_work,
            reader,
            hooks: NoHooks,
            forms: NoRefusalForms,
            clock,
            authorizer: Arc::new(PermissionAuthorizer),
            settings,
            deadlocks: Arc::new(AtomicU64::new(0)),
            replay_cache: None,
            in_flight: None,
            batching: None,
        }
    }
}

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    #[must_use]
    pub fn with_authorizer(mut self, authorizer: Arc<dyn ReplayAuthorizer>) -> Self {
        self.authorizer = authorizer;
        self
    }

    #[must_use]
    pub fn with_deadlock_counter(mut self, counter: Arc<AtomicU64>) -> Self {
        self.deadlocks = counter;
        self
    }

    /// Shared by the process's workers, and by its admin, whose eviction drops an entry.
    #[must_use]
    pub fn with_replay_cache(mut self, cache: Arc<ReplayCache>) -> Self {
        self.replay_cache = Some(cache);
        self
    }

    /// Shared by the process's workers, as same-key requests may reach any of them.
    #[must_use]
    pub fn with_in_flight(mut self, in_flight: Arc<InFlight>) -> Self {
        self.in_flight = Some(in_flight);
        self
    }

    /// Requests of a batched operation arriving together share one transaction
    /// (`docs/storage.md#batched-operations`); shared by the process's workers.
    #[must_use]
    pub fn with_batching(mut self, batching: Arc<Batching>) -> Self {
        self.batching = Some(batching);
        self
    }

    pub fn with_hooks<H2: FlowHooks>(self, hooks: H2) -> Coordinator<U, R, H2, F> {
        self.retyped(|_, forms| (hooks, forms))
    }

    /// How stored refusals are written: the edge's forms for them.
    pub fn with_refusal_forms<F2>(self, forms: F2) -> Coordinator<U, R, H, F2> {
        self.retyped(|hooks, _| (hooks, forms))
    }

    /// The same coordinator with its hooks or forms of another type.
    fn retyped<H2, F2>(self, parts: impl FnOnce(H, F) -> (H2, F2)) -> Coordinator<U, R, H2, F2> {
        let (hooks, forms) = parts(self.hooks, self.forms);
        Coordinator {
            unit_of_work: self.unit_of_work,
            reader: self.reader,
            hooks,
            forms,
            clock: self.clock,
            authorizer: self.authorizer,
            settings: self.settings,
            deadlocks: self.deadlocks,
            replay_cache: self.replay_cache,
            in_flight: self.in_flight,
            batching: self.batching,
        }
    }

    /// Deadlocked attempts, Galera certification failures included.
    pub fn deadlocks(&self) -> u64 {
        self.deadlocks.load(Ordering::Relaxed)
    }

    /// The edge checked the permission; a replay checks it again, at replay time.
    pub async fn run<Op>(
        &self,
        op: &Op,
        caller: &Caller,
        key: &IdempotencyKey,
        input: &Op::Input,
    ) -> Outcome<Op::Refusal>
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let scope = Scope {
            tenant: caller.tenant,
            actor: caller.actor,
            operation: Op::OPERATION,
        };
        let request = Request {
            op,
            caller,
            fingerprint: input.fingerprint(&scope.operation),
            scope,
            key,
            input,
        };
        let started = self.clock.monotonic();
        loop {
            if let Some(cached) = self.replay_cache.as_ref().and_then(|cache| {
                cache.get(
                    &request.scope,
                    key,
                    self.clock.now(),
                    self.clock.monotonic(),
                )
            }) {
                return self.answer_from(&request, cached.record());
            }
            let Some(in_flight) = &self.in_flight else {
                return self.lead_or_batch(&request).await.0;
            };
            let follower = match in_flight.join(&request.scope, key) {
                Role::Leader(lead) => {
                    let (outcome, landed) = self.lead_or_batch(&request).await;
                    lead.land(landed);
                    return outcome;
                }
                Role::Follower(follower) => follower,
            };
            let left = self
                .settings
                .same_key_wait
                .saturating_sub(self.clock.monotonic().saturating_sub(started));
            match select(std::pin::pin!(landing(follower)), self.clock.pause(left)).await {
                Either::Left((Some(record), _)) => {
                    return self.answer_from(&request, &record);
                }
                // The leader left nothing to answer from: lead, or follow the next one.
                Either::Left((None, _)) => {}
                Either::Right(_) => return Outcome::InProgress,
            }
        }
    }
}

/// One request as the flow carries it.
struct Request<'a, Op: IdempotentOperation> {
    op: &'a Op,
    caller: &'a Caller,
    scope: Scope,
    key: &'a IdempotencyKey,
    fingerprint: Fingerprint,
    input: &'a Op::Input,
}
