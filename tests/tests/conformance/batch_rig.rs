//! The harness of batches built for certain (`docs/storage.md#batched-operations`): the
//! first request holds the only slot inside its transaction until the others wait behind
//! it, then they run as one batch; a [`Rig`] keeps one process's batching across batches.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters::http::{ProblemForm, ProblemForms};
use application::ports::{HookVerdict, RecordReader, UnitOfWork};
use application::{
    BatchObserver, BatchSettings, Batching, Caller, CreateOrder, CreateRefusal,
    IdempotentOperation, Outcome, RerunCause, Steps,
};
use domain::StoredResponse;
use tests::{LeaderGate, caller, coordinator_on, key, new_order, wait_until};

/// What the batches did, as the process's metrics would count it.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) ran: Mutex<Vec<usize>>,
    pub(crate) reruns: Mutex<Vec<(RerunCause, usize)>>,
}

impl BatchObserver for Seen {
    fn batch_ran(&self, _: &'static str, members: usize) {
        self.ran.lock().unwrap().push(members);
    }

    fn batch_rerun(&self, _: &'static str, cause: RerunCause, members: usize) {
        self.reruns.lock().unwrap().push((cause, members));
    }
}

/// Runs `first` held in its transaction with the only slot, queues `queued` behind it,
/// lets it go, and answers every outcome (`first`'s first) with what the batches did.
/// [`held_then_batched`] on `store`: `before_release` runs once every member waits, and
/// the held request ends as `verdict` says (rolled back, it sends no `COMMIT`).
pub(crate) async fn held_then_batched_on<S>(
    store: &S,
    first: (&str, &str),
    queued: &[(&str, &str)],
    verdict: HookVerdict,
    before_release: impl FnOnce(),
) -> (Vec<Outcome<CreateRefusal>>, Arc<Seen>)
where
    S: UnitOfWork + RecordReader + Clone + 'static,
    S::Tx: Steps<CreateOrder>,
{
    let create =
        |(k, reference): (&str, &str)| (k.to_owned(), caller(1, 1), new_order(reference, 1));
    let queued: Vec<_> = queued.iter().copied().map(create).collect();
    let batch = Batch {
        op: CreateOrder,
        first: create(first),
        queued,
    };
    batch.run(store, verdict, before_release).await
}

/// A held request of `op` (the first), and requests queued behind it: each a key, its
/// caller and its input.
pub(crate) struct Batch<Op: IdempotentOperation> {
    pub(crate) op: Op,
    pub(crate) first: (String, Caller, Op::Input),
    pub(crate) queued: Vec<(String, Caller, Op::Input)>,
}

impl<Op: IdempotentOperation + Clone> Batch<Op>
where
    Op::Refusal: ProblemForm,
{
    /// Every outcome (`first`'s first) and what the batches did.
    pub(crate) async fn run<S>(
        self,
        store: &S,
        verdict: HookVerdict,
        before_release: impl FnOnce(),
    ) -> (Vec<Outcome<Op::Refusal>>, Arc<Seen>)
    where
        S: UnitOfWork + RecordReader + Clone + 'static,
        S::Tx: Steps<Op>,
    {
        let rig = Rig::new();
        let outcomes = self.run_on(store, &rig, verdict, before_release).await;
        (outcomes, rig.seen)
    }

    /// [`Batch::run`] on `rig`'s batching, which batches run before may have taught.
    pub(crate) async fn run_on<S>(
        self,
        store: &S,
        rig: &Rig,
        verdict: HookVerdict,
        before_release: impl FnOnce(),
    ) -> Vec<Outcome<Op::Refusal>>
    where
        S: UnitOfWork + RecordReader + Clone + 'static,
        S::Tx: Steps<Op>,
    {
        let batching = rig.batching.clone();
        let (gate, mut handle) = LeaderGate::new();
        let coordinator = Arc::new(
            coordinator_on(store)
                .with_batching(batching.clone())
                .with_hooks(gate)
                .with_refusal_forms(ProblemForms),
        );
        let run = |(k, caller, input): (String, Caller, Op::Input)| {
            let (coordinator, op) = (coordinator.clone(), self.op.clone());
            tokio::spawn(async move { coordinator.run(&op, &caller, &key(&k), &input).await })
        };
        let held = run(self.first.clone());
        handle.leader_inserted().await;
        // One by one, each waiting before the next is sent: their order in the queue is
        // the order they are listed in.
        let mut waiting = Vec::new();
        for (n, member) in self.queued.iter().cloned().enumerate() {
            waiting.push(run(member));
            wait_until(
                Duration::from_secs(30),
                "the member waiting behind the held request",
                || async { batching.waiting::<Op>() },
                |waiting| *waiting == n + 1,
            )
            .await;
        }
        before_release();
        handle.release(verdict);
        let mut outcomes = vec![held.await.unwrap()];
        for member in waiting {
            outcomes.push(member.await.unwrap());
        }
        outcomes
    }
}

/// One process's batching, kept across batches, and what its batches did.
pub(crate) struct Rig {
    batching: Arc<Batching>,
    pub(crate) seen: Arc<Seen>,
}

impl Rig {
    pub(crate) fn new() -> Self {
        let seen = Arc::new(Seen::default());
        let observer: Arc<dyn BatchObserver> = seen.clone();
        let batching = Arc::new(
            Batching::new(BatchSettings {
                max_members: 16,
                max_in_flight: 1,
            })
            .with_observer(observer),
        );
        Self { batching, seen }
    }
}

/// The answer of a request that executed; a test's setup that did not is a failed test.
pub(crate) fn executed<R: std::fmt::Debug>(outcome: Outcome<R>) -> StoredResponse {
    let Outcome::Executed { response, .. } = outcome else {
        panic!("{outcome:?}")
    };
    response
}

/// Gives `order` (tenant 1's) a pending capture, accepted and committed as a worker would
/// find it.
pub(crate) async fn with_pending_capture<S: UnitOfWork>(store: &S, order: domain::OrderId)
where
    S::Tx: application::payments::CaptureAcceptance,
{
    use application::payments::CaptureAcceptance;
    use application::ports::RecordTx;
    let capture = tests::leased::new_capture(1, order.get(), 100, chrono::Utc::now());
    let mut tx = store.begin().await.unwrap();
    tx.accept_capture(&capture).await.unwrap();
    tx.commit().await.unwrap();
}
