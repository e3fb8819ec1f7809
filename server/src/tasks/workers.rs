//! The workers of the leased operations, every kind the service lists
//! (`docs/long-running-operations.md#the-worker`): in every `serve` process when
//! `PAYMENT_PROVIDER_URL` is set, or alone as `server worker`.

use application::ErrorChain;
use std::sync::Arc;
use std::time::Duration;

use adapters::SystemClock;
use adapters::api::{ServiceProvider, ServiceTx, worker_kinds};
use adapters::metrics::Metrics;
use application::leased::{
    CallObserver, Unobserved, Worked, WorkerKinds, WorkerPorts, WorkerSettings,
};
use application::ports::{Clock, DueOperation, FlowHooks, OperationCensus, OperationStore};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;
use uuid::Uuid;

use crate::config::payments::PaymentsConfig;
use crate::tasks::census::run_census;
use crate::tasks::due_feed::DueFeed;
use crate::tasks::stopped;
use crate::tasks::worker_report::report;
use crate::tasks::worker_spread::{failure_wait, owner_id, spread_seed};

/// Returns once every worker has stopped; fails only when an owner id cannot be made,
/// which its fixed format rules out. With `metrics`, the operations are also counted by
/// state for the `operations_in_state` gauge.
pub(crate) async fn run_workers<S, P, H>(
    store: S,
    provider: P,
    hooks: H,
    config: &PaymentsConfig,
    metrics: Option<Arc<Metrics>>,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()>
where
    S: OperationStore<Tx: ServiceTx> + OperationCensus + Clone + 'static,
    P: ServiceProvider + Clone,
    H: FlowHooks + Clone + 'static,
{
    let kinds = Arc::new(worker_kinds::<S, P, H>());
    let feed = Arc::new(DueFeed::new(
        spread_seed(Uuid::new_v4()),
        config.concurrency,
    ));
    let mut workers = JoinSet::new();
    if let Some(metrics) = &metrics {
        workers.spawn(run_census(store.clone(), Arc::clone(metrics), stop.clone()));
    }
    for task in 0..config.concurrency {
        let owner = owner_id(std::process::id(), task, Uuid::new_v4())?;
        let span = tracing::info_span!("capture_worker", owner = owner.as_str());
        let worker = Worker {
            kinds: Arc::clone(&kinds),
            store: store.clone(),
            provider: provider.clone(),
            hooks: hooks.clone(),
            settings: config.worker_settings(owner),
            poll: config.poll,
            metrics: metrics.clone(),
            feed: Arc::clone(&feed),
        };
        workers.spawn(worker.run(stop.clone()).instrument(span));
    }
    tracing::info!(
        workers = config.concurrency,
        lease_secs = config.lease.as_secs(),
        max_attempts = config.max_attempts,
        kinds = ?kinds,
        "workers started"
    );
    while let Some(joined) = workers.join_next().await {
        if let Err(error) = joined {
            tracing::error!(%error, "a worker ended abnormally");
        }
    }
    tracing::info!("workers stopped");
    Ok(())
}

#[derive(Debug)]
struct Worker<S, P, H> {
    kinds: Arc<WorkerKinds<S, P, H>>,
    store: S,
    provider: P,
    hooks: H,
    settings: WorkerSettings,
    poll: Duration,
    metrics: Option<Arc<Metrics>>,
    feed: Arc<DueFeed>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// This worker took an operation from the feed, claimed or not: there may be more due
    /// at once.
    Worked,
    /// Nothing due that no other task of the process holds.
    Idle,
    Failed,
    Stopped,
}

impl<S, P, H> Worker<S, P, H>
where
    S: OperationStore + 'static,
    P: Send + Sync + 'static,
    H: FlowHooks + 'static,
{
    /// Passes until `stop` turns true: at once after a pass that worked, after the poll
    /// when nothing was due, after a growing backoff while the database fails.
    async fn run(self, mut stop: watch::Receiver<bool>) {
        let mut failures_in_a_row = 0;
        loop {
            let wait = match self.pass(&mut stop).await {
                Pass::Stopped => break,
                Pass::Worked => {
                    failures_in_a_row = 0;
                    continue;
                }
                Pass::Idle => {
                    failures_in_a_row = 0;
                    self.poll
                }
                Pass::Failed => {
                    failures_in_a_row += 1;
                    failure_wait(self.poll, failures_in_a_row)
                }
            };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = stopped(&mut stop) => break,
            }
        }
        tracing::debug!("worker stopped");
    }

    /// Takes the next due operation from the process's feed (reading the due operations
    /// when it is empty) and works it.
    async fn pass(&self, stop: &mut watch::Receiver<bool>) -> Pass {
        let kinds = self.kinds.names();
        let counted = || {
            if let Some(metrics) = &self.metrics {
                metrics.count_worker_poll();
            }
        };
        let next = tokio::select! {
            biased;
            () = stopped(stop) => return Pass::Stopped,
            next = self.feed.next(&self.store, &kinds, SystemClock.now(), counted) => next,
        };
        let handed = match next {
            Ok(Some(handed)) => handed,
            Ok(None) => return Pass::Idle,
            Err(error) => {
                tracing::warn!(error = %ErrorChain(&error), "cannot read the due operations; backing off");
                return Pass::Failed;
            }
        };
        let group = &handed.group;
        let calls: &dyn CallObserver = match &self.metrics {
            Some(metrics) => metrics.as_ref(),
            None => &Unobserved,
        };
        let ports = WorkerPorts {
            store: &self.store,
            provider: &self.provider,
            clock: &SystemClock,
            hooks: &self.hooks,
            calls,
        };
        // Dropping the work writes nothing more and the leases run out. A provider call it
        // made is safe: the next owner asks again under the same downstream key.
        let attempts: Vec<tracing::Span> = group.iter().map(attempt_span).collect();
        // The feed read only the kinds this worker serves.
        let Some(work) = self.kinds.work(ports, &self.settings, group, &attempts) else {
            return Pass::Worked;
        };
        let worked = tokio::select! {
            biased;
            () = stopped(stop) => return Pass::Stopped,
            worked = work => worked,
        };
        match worked {
            Ok(worked) => {
                for ((operation, worked), attempt) in group.iter().zip(&worked).zip(&attempts) {
                    attempt.in_scope(|| report(operation, worked, self.metrics.as_deref()));
                }
                // The database failed under a won claim: back off as for any failure.
                if worked.iter().any(|w| matches!(w, Worked::Abandoned { .. })) {
                    Pass::Failed
                } else {
                    Pass::Worked
                }
            }
            Err(error) => {
                tracing::warn!(
                    operations = group.len(),
                    error = %ErrorChain(&error),
                    "claiming operations failed; they stay pending"
                );
                Pass::Failed
            }
        }
    }
}

/// One attempt continues the trace of the request that accepted the operation, so the
/// acceptance, every attempt and the other service's side of each call share one trace id.
/// The call runs in it; the group's claim and ends, shared with other operations, do not.
fn attempt_span(operation: &DueOperation) -> tracing::Span {
    let span = tracing::info_span!(
        target: "spans",
        "operation attempt",
        operation.id = %operation.id,
        operation.r#type = %operation.kind,
        operation.attempts = operation.attempts,
    );
    adapters::telemetry::continue_trace(&span, operation.trace_context.as_deref());
    span
}
