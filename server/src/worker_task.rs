//! The capture workers (contract §7): in every `serve` process when
//! `PAYMENT_PROVIDER_URL` is set, or alone as `server worker`. `WORKER_CONCURRENCY` tasks
//! each read the due operations and work them one at a time with
//! [`application::payments::work_once`], until stopped.
//!
//! Stopping drops an operation in flight: its worker gives the lease back by letting it
//! expire, without writing. The provider call it may have made is safe to repeat, since
//! the next owner asks again under the same downstream key.

use std::sync::Arc;
use std::time::Duration;

use adapters::http::Metrics;
use application::payments::{Worked, WorkerPorts, WorkerSettings, work_once};
use application::ports::{
    Clock, DueOperation, Ending, FlowHooks, OperationStore, PaymentProvider, SystemClock,
};
use domain::{OwnerId, OwnerIdError};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;
use uuid::Uuid;

use crate::payments_config::PaymentsConfig;

/// The operation type the workers carry out, as the metrics label it.
const CAPTURE: &str = "payments.capture.v1";

/// Due operations read per pass.
const DUE_BATCH: usize = 16;

/// The longest wait between passes while the database fails.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Runs `config.concurrency` workers on `store` and `provider` until `stop` turns true,
/// and returns once every one of them has stopped.
///
/// # Errors
/// When a worker's owner id cannot be made (it always can: the format is fixed).
pub(crate) async fn run_workers<S, P, H>(
    store: S,
    provider: P,
    hooks: H,
    config: &PaymentsConfig,
    metrics: Option<Arc<Metrics>>,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()>
where
    S: OperationStore + Clone + 'static,
    P: PaymentProvider + Clone + 'static,
    H: FlowHooks + Clone + 'static,
{
    let seed = spread_seed(Uuid::new_v4());
    let mut workers = JoinSet::new();
    for task in 0..config.concurrency {
        let owner = owner_id(std::process::id(), task, Uuid::new_v4())?;
        let span = tracing::info_span!("capture_worker", owner = owner.as_str());
        let worker = Worker {
            store: store.clone(),
            provider: provider.clone(),
            hooks: hooks.clone(),
            settings: config.worker_settings(owner),
            poll: config.poll,
            metrics: metrics.clone(),
            place: Place {
                task,
                tasks: config.concurrency,
                seed,
            },
        };
        workers.spawn(worker.run(stop.clone()).instrument(span));
    }
    tracing::info!(
        workers = config.concurrency,
        lease_secs = config.lease.as_secs(),
        max_attempts = config.max_attempts,
        "capture workers started"
    );
    while let Some(joined) = workers.join_next().await {
        if let Err(error) = joined {
            tracing::error!(%error, "a capture worker ended abnormally");
        }
    }
    tracing::info!("capture workers stopped");
    Ok(())
}

/// One worker task and what it works with.
#[derive(Debug)]
struct Worker<S, P, H> {
    store: S,
    provider: P,
    hooks: H,
    settings: WorkerSettings,
    poll: Duration,
    metrics: Option<Arc<Metrics>>,
    place: Place,
}

/// What one pass came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// This worker won at least one claim: there may be more due at once.
    Worked,
    /// Nothing due, or every claim went to another worker.
    Idle,
    /// The database failed; logged.
    Failed,
    /// Stop turned true.
    Stopped,
}

impl<S, P, H> Worker<S, P, H>
where
    S: OperationStore,
    P: PaymentProvider,
    H: FlowHooks,
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
        tracing::debug!("capture worker stopped");
    }

    /// Reads the due operations and works them, starting at this worker's place in the
    /// batch so that the workers do not all contend for its first row.
    async fn pass(&self, stop: &mut watch::Receiver<bool>) -> Pass {
        let due = tokio::select! {
            biased;
            () = stopped(stop) => return Pass::Stopped,
            due = self.store.due(DUE_BATCH, SystemClock.now()) => due,
        };
        let mut due = match due {
            Ok(due) => due,
            Err(error) => {
                tracing::warn!(%error, "cannot read the due operations; backing off");
                return Pass::Failed;
            }
        };
        let start = self.place.start(due.len());
        due.rotate_left(start);
        let ports = WorkerPorts {
            store: &self.store,
            provider: &self.provider,
            clock: &SystemClock,
            hooks: &self.hooks,
        };
        let mut pass = Pass::Idle;
        for operation in &due {
            // Dropping `work_once` here writes nothing more; the lease runs out.
            let worked = tokio::select! {
                biased;
                () = stopped(stop) => return Pass::Stopped,
                worked = work_once(ports, &self.settings, operation) => worked,
            };
            match worked {
                Ok(worked) => {
                    if report(operation, &worked, self.metrics.as_deref()) {
                        pass = Pass::Worked;
                    }
                }
                Err(error) => {
                    tracing::warn!(
                        operation_id = %operation.id,
                        %error,
                        "working an operation failed; it stays pending and its lease runs out"
                    );
                    return Pass::Failed;
                }
            }
        }
        pass
    }
}

/// Logs and counts what working `operation` came to; `true` when this worker won its
/// claim.
fn report(operation: &DueOperation, worked: &Worked, metrics: Option<&Metrics>) -> bool {
    let operation_id = operation.id;
    let won = !matches!(worked, Worked::NotClaimed);
    match worked {
        Worked::NotClaimed => {
            tracing::debug!(%operation_id, "another worker claimed the operation");
        }
        Worked::Ended(ending) => {
            let state = ending.state().as_api();
            if *ending == Ending::NeedsReview {
                tracing::warn!(
                    %operation_id,
                    state,
                    attempts = operation.attempts.saturating_add(1),
                    "operation needs review: no definite answer from the provider within the \
                     attempts; for a person to look at"
                );
            } else {
                tracing::info!(%operation_id, state, "operation ended");
            }
        }
        Worked::RetryAt(next_attempt_at) => {
            tracing::info!(
                %operation_id,
                %next_attempt_at,
                "no definite answer from the provider; the operation is retried later"
            );
        }
        Worked::LeaseLost => {
            tracing::warn!(
                %operation_id,
                "lease lost to another worker; this worker wrote nothing more"
            );
        }
    }
    if let Some(metrics) = metrics {
        metrics.count_operation_claim(won);
        match worked {
            Worked::NotClaimed => {}
            Worked::Ended(ending) => metrics.count_operation_ended(CAPTURE, ending.state()),
            Worked::RetryAt(_) => metrics.count_operation_retry(),
            Worked::LeaseLost => metrics.count_operation_lease_loss(),
        }
    }
    won
}

/// Resolves once `stop` is true, or its sender is gone (nobody can stop us any more
/// then, which means the process is ending).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}

/// The wait after `failures` passes in a row failed: the poll, doubling, up to
/// [`MAX_BACKOFF`] (or the poll, when that is longer).
fn failure_wait(poll: Duration, failures: u32) -> Duration {
    poll.saturating_mul(1 << failures.min(16))
        .min(MAX_BACKOFF)
        .max(poll)
}

/// A worker's owner id: `<pid>-<task>-<8 hex digits of nonce>`, so that the lease names
/// the process and task that holds it, and a restarted process (which may reuse a pid)
/// is still another owner.
fn owner_id(pid: u32, task: usize, nonce: Uuid) -> Result<OwnerId, OwnerIdError> {
    let nonce = nonce.simple().to_string();
    OwnerId::parse(&format!("{pid}-{task}-{}", &nonce[..8]))
}

/// Where a worker starts in each batch of due operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    /// This worker's number in its process.
    task: usize,
    /// The workers in its process.
    tasks: usize,
    /// The process's random shift, so that processes do not all start at the same row.
    seed: usize,
}

impl Place {
    /// The first index to work in a batch of `len`: the workers of a process spread
    /// evenly over the batch, the whole spread shifted by the process's seed.
    fn start(self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        (self.task * len / self.tasks.max(1) + self.seed) % len
    }
}

/// A process's shift of its workers' places, from `random`.
fn spread_seed(random: Uuid) -> usize {
    let bytes = random.into_bytes();
    usize::from(u16::from_le_bytes([bytes[0], bytes[1]]))
}

#[cfg(test)]
mod tests {
    use domain::{Amount, Currency, Generation, LeaseView, OrderId, PaymentCapture, TenantId};

    use super::*;

    fn due() -> DueOperation {
        DueOperation {
            id: Uuid::new_v4(),
            tenant: TenantId::parse(1).unwrap(),
            input: PaymentCapture {
                order: OrderId::new(42),
                amount: Amount::parse(1500).unwrap(),
                currency: Currency::parse("JPY").unwrap(),
            },
            downstream_key: "downstream-secret".to_owned(),
            attempts: 7,
            lease: LeaseView {
                generation: Generation::UNCLAIMED,
                holder: None,
            },
        }
    }

    #[test]
    fn each_result_is_counted_once_and_only_a_lost_claim_is_not_won() {
        let metrics = Metrics::new();
        let operation = due();
        let results = [
            (Worked::NotClaimed, false),
            (Worked::Ended(Ending::NeedsReview), true),
            (
                Worked::Ended(Ending::Succeeded {
                    charge_id: "ch_1".to_owned(),
                }),
                true,
            ),
            (Worked::RetryAt(SystemClock.now()), true),
            (Worked::LeaseLost, true),
        ];
        for (worked, won) in results {
            assert_eq!(
                report(&operation, &worked, Some(&metrics)),
                won,
                "{worked:?}"
            );
        }
        assert!(report(&operation, &Worked::Ended(Ending::Declined), None));
        let text = metrics.render();
        for line in [
            r#"operation_claims_total{result="won"} 4"#,
            r#"operation_claims_total{result="lost"} 1"#,
            r#"operations_ended_total{type="payments.capture.v1",state="needs_review"} 1"#,
            r#"operations_ended_total{type="payments.capture.v1",state="succeeded"} 1"#,
            "operation_retries_total 1",
            "operation_lease_losses_total 1",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }

    #[test]
    fn owner_ids_name_the_process_and_task_and_differ_per_start() {
        let nonce = Uuid::from_u128(0xdead_beef_0000_0000_0000_0000_0000_0001);
        let owner = owner_id(4242, 3, nonce).unwrap();
        assert_eq!(owner.as_str(), "4242-3-deadbeef");
        let longest = owner_id(u32::MAX, 63, Uuid::new_v4()).unwrap();
        assert!(longest.as_str().len() <= 64);
        assert_ne!(
            owner_id(1, 0, Uuid::new_v4()).unwrap(),
            owner_id(1, 0, Uuid::new_v4()).unwrap()
        );
    }

    #[test]
    fn the_workers_of_a_process_start_at_different_rows() {
        let place = |task, seed| Place {
            task,
            tasks: 8,
            seed,
        };
        let starts: Vec<usize> = (0..8).map(|task| place(task, 0).start(16)).collect();
        assert_eq!(starts, [0, 2, 4, 6, 8, 10, 12, 14]);
        let shifted: Vec<usize> = (0..8).map(|task| place(task, 5).start(16)).collect();
        assert_eq!(shifted, [5, 7, 9, 11, 13, 15, 1, 3]);
        // Fewer rows than workers: still within the batch.
        for task in 0..8 {
            assert!(place(task, 70_000).start(3) < 3);
        }
        assert_eq!(place(7, 9).start(0), 0);
        assert_eq!(place(0, 9).start(1), 0);
    }

    #[test]
    fn failures_back_off_doubling_up_to_the_bound() {
        let poll = Duration::from_millis(200);
        assert_eq!(failure_wait(poll, 1), Duration::from_millis(400));
        assert_eq!(failure_wait(poll, 2), Duration::from_millis(800));
        assert_eq!(failure_wait(poll, 40), MAX_BACKOFF);
        let slow = Duration::from_secs(60);
        assert_eq!(failure_wait(slow, 1), slow);
    }

    #[test]
    fn the_seed_comes_from_the_random_bytes() {
        assert_eq!(spread_seed(Uuid::from_u128(0x0102 << 112)), 0x0201);
        assert_ne!(spread_seed(Uuid::from_u128(1 << 120)), 0);
    }
}
