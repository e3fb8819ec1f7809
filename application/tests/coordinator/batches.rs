//! Batched creates (`docs/storage.md#batched-creates`): a held request takes the only slot
//! while the members wait behind it, so each test builds a batch of a known size; the ports'
//! batch methods run by their defaults, one call per member.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use application::ports::{CommitError, FlowHooks, HookVerdict, InsertRecordError, StoreError};
use application::{
    BatchObserver, BatchSettings, Batching, Coordinator, CreateOrder, CreateRefusal, Outcome,
    RerunCause, StepError, UnknownCause,
};
use domain::{IdempotencyKey, OrderId, RecordId, Scope};
use tokio::sync::Semaphore;

use crate::support::*;

const MEMBERS: usize = 3;

/// What a batch was counted as.
#[derive(Default)]
struct Counted {
    ran: Mutex<Vec<usize>>,
    reruns: Mutex<Vec<(RerunCause, usize)>>,
}

impl BatchObserver for Counted {
    fn batch_ran(&self, operation: &'static str, members: usize) {
        assert_eq!(operation, "orders.create.v1");
        self.ran.lock().unwrap().push(members);
    }

    fn batch_rerun(&self, operation: &'static str, cause: RerunCause, members: usize) {
        assert_eq!(operation, "orders.create.v1");
        self.reruns.lock().unwrap().push((cause, members));
    }
}

/// Holds every request after its record insert until the test lets it through, and
/// counts the requests that got there.
#[derive(Clone)]
struct Held {
    gate: Arc<Semaphore>,
    arrived: Arc<AtomicUsize>,
}

impl FlowHooks for Held {
    async fn after_record_insert(&self, _: &Scope, _: &IdempotencyKey) -> HookVerdict {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        match self.gate.acquire().await {
            Ok(permit) => permit.forget(),
            Err(_closed) => return HookVerdict::Abort,
        }
        HookVerdict::Continue
    }
}

/// Yields to the spawned requests until `done`, within a bound.
async fn until(what: &str, done: impl Fn() -> bool) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !done() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never: {what}"));
}

/// The held request commits alone (record 5, order 9); then the batch of `MEMBERS` runs on
/// `batch`, and each member run alone after it gets one of `alone`. The members' outcomes,
/// in their order, and what was counted.
async fn batch_of_members(
    batch: MockTx,
    alone: impl IntoIterator<Item = MockTx>,
) -> (Vec<CreateOutcome>, Arc<Counted>) {
    let counted = Arc::new(Counted::default());
    let batching = Arc::new(
        Batching::new(BatchSettings {
            max_members: 16,
            max_in_flight: 1,
        })
        .with_observer(counted.clone()),
    );
    let held = Held {
        gate: Arc::new(Semaphore::new(0)),
        arrived: Arc::new(AtomicUsize::new(0)),
    };
    let txs = [tx_committing(), batch].into_iter().chain(alone);
    let coordinator: Arc<Coordinator<_, _, Held>> = Arc::new(
        coordinator(ScriptedUnitOfWork::of(txs), no_reads())
            .with_batching(batching.clone())
            .with_hooks(held.clone()),
    );
    let run = |name: String| {
        let coordinator = coordinator.clone();
        tokio::spawn(async move {
            let key = IdempotencyKey::parse(&name).unwrap();
            coordinator
                .run(&CreateOrder, &caller(), &key, &new_order(2))
                .await
        })
    };
    let first = run("held".into());
    until("the held request at its gate", || {
        held.arrived.load(Ordering::SeqCst) == 1
    })
    .await;
    let members: Vec<_> = (0..MEMBERS).map(|n| run(format!("member-{n}"))).collect();
    until("the members waiting behind it", || {
        batching.waiting::<CreateOrder>() == MEMBERS
    })
    .await;
    held.gate.add_permits(1_000);
    assert!(matches!(
        first.await.unwrap(),
        Outcome::Executed {
            record: RecordId(5),
            ..
        }
    ));
    let mut outcomes = Vec::new();
    for member in members {
        outcomes.push(member.await.unwrap());
    }
    drop(coordinator);
    (outcomes, counted)
}

/// A batch transaction whose record inserts give ids 10, 11, 12 in the members' order.
fn batch_inserting_records() -> MockTx {
    let mut tx = MockTx::new();
    let next = AtomicU64::new(10);
    tx.expect_insert_processing()
        .times(MEMBERS)
        .returning(move |_| ready(Ok(RecordId(next.fetch_add(1, Ordering::SeqCst)))));
    tx
}

/// ... and whose orders are 20, 21, 22 with their events.
fn batch_inserting_orders() -> MockTx {
    let mut tx = batch_inserting_records();
    let next = AtomicU64::new(20);
    tx.expect_insert_order()
        .times(MEMBERS)
        .returning(move |_, _, _| ready(Ok(OrderId::new(next.fetch_add(1, Ordering::SeqCst)))));
    tx.expect_add_event()
        .times(MEMBERS)
        .returning(|_| ready(Ok(())));
    tx
}

/// ... completing each member's record.
fn batch_completing() -> MockTx {
    let mut tx = batch_inserting_orders();
    tx.expect_complete()
        .times(MEMBERS)
        .returning(|_, _| ready(Ok(1)));
    tx
}

fn members_alone() -> Vec<MockTx> {
    (0..MEMBERS).map(|_| tx_committing()).collect()
}

fn each_ran_alone(outcomes: &[CreateOutcome]) {
    outcomes.iter().for_each(assert_executed_on_record_5);
}

#[tokio::test]
async fn a_batch_commits_once_and_answers_each_member_its_own_record_and_order() {
    let mut batch = batch_completing();
    batch.expect_commit().times(1).returning(|| ready(Ok(())));
    batch.expect_rollback().never();

    let (outcomes, counted) = batch_of_members(batch, []).await;

    for (n, outcome) in outcomes.iter().enumerate() {
        let Outcome::Executed { record, response } = outcome else {
            panic!("member {n}: {outcome:?}");
        };
        assert_eq!(*record, RecordId(10 + n as u64));
        assert_eq!(response.status(), 201);
        assert_eq!(
            response.location(),
            Some(format!("/api/orders/{}", 20 + n).as_str())
        );
    }
    assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);
    assert!(counted.reruns.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_taken_key_in_a_batch_rolls_it_back_and_runs_every_member_alone() {
    let mut batch = MockTx::new();
    let calls = AtomicUsize::new(0);
    batch
        .expect_insert_processing()
        .times(2)
        .returning(move |_| {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                ready(Ok(RecordId(10)))
            } else {
                ready(Err(InsertRecordError::KeyAlreadyRegistered))
            }
        });
    batch.expect_insert_order().never();
    expect_rollback_only(&mut batch);

    let (outcomes, counted) = batch_of_members(batch, members_alone()).await;

    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::KeyTaken, MEMBERS)]
    );
    assert!(counted.ran.lock().unwrap().is_empty());
}

/// Makes a step's failure afresh for each case.
type Failure = fn() -> StepError<CreateRefusal>;

/// A batch whose first order insert fails with `error`: what it was counted as, and the
/// members' outcomes.
async fn batch_with_order_insert_failing(
    error: StepError<CreateRefusal>,
    alone: Vec<MockTx>,
) -> (Vec<CreateOutcome>, Arc<Counted>) {
    let mut batch = batch_inserting_records();
    let error = Mutex::new(Some(error));
    batch
        .expect_insert_order()
        .times(1)
        .returning(move |_, _, _| ready(Err(error.lock().unwrap().take().unwrap())));
    batch.expect_complete().never();
    expect_rollback_only(&mut batch);
    batch_of_members(batch, alone).await
}

#[tokio::test]
async fn a_refusal_lock_wait_deadlock_or_other_failure_in_a_batch_reruns_every_member_alone() {
    let cases: [(Failure, RerunCause); 4] = [
        (
            || StepError::Rejected(CreateRefusal::ClientOrderRefConflict),
            RerunCause::Refused,
        ),
        (
            || StepError::Store(StoreError::LockWaitTimeout),
            RerunCause::LockWaitTimeout,
        ),
        (
            || StepError::Store(StoreError::Deadlock),
            RerunCause::Deadlock,
        ),
        (
            || StepError::Store(StoreError::Other("disk full".into())),
            RerunCause::Failed,
        ),
    ];
    for (error, cause) in cases {
        let (outcomes, counted) = batch_with_order_insert_failing(error(), members_alone()).await;
        each_ran_alone(&outcomes);
        assert_eq!(
            *counted.reruns.lock().unwrap(),
            [(cause, MEMBERS)],
            "{cause:?}"
        );
    }
}

#[tokio::test]
async fn a_lost_connection_or_a_timeout_in_a_batch_answers_every_member_unknown_with_no_rerun() {
    let cases: [(fn() -> StoreError, UnknownCause); 2] = [
        (
            || StoreError::ConnectionLost("reset".into()),
            UnknownCause::DatabaseUnavailable,
        ),
        (|| StoreError::Timeout, UnknownCause::DatabaseTimeout),
    ];
    for (error, cause) in cases {
        let (outcomes, counted) =
            batch_with_order_insert_failing(StepError::Store(error()), vec![]).await;
        for outcome in &outcomes {
            assert!(
                matches!(outcome, Outcome::OutcomeUnknown(c) if *c == cause),
                "{outcome:?}"
            );
        }
        assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);
        assert!(counted.reruns.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn a_completion_that_misses_a_record_rolls_the_batch_back_and_reruns_it() {
    let mut batch = batch_inserting_orders();
    let calls = AtomicUsize::new(0);
    batch
        .expect_complete()
        .times(MEMBERS)
        .returning(move |_, _| ready(Ok(u64::from(calls.fetch_add(1, Ordering::SeqCst) != 1))));
    expect_rollback_only(&mut batch);

    let (outcomes, counted) = batch_of_members(batch, members_alone()).await;

    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::Failed, MEMBERS)]
    );
}

#[tokio::test]
async fn a_lost_commit_answers_every_member_unknown_and_one_rolled_back_reruns_them() {
    let mut lost = batch_completing();
    lost.expect_commit()
        .times(1)
        .returning(|| ready(Err(CommitError::CommitOutcomeUnknown("gone".into()))));
    let (outcomes, counted) = batch_of_members(lost, []).await;
    for outcome in &outcomes {
        assert!(
            matches!(
                outcome,
                Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown)
            ),
            "{outcome:?}"
        );
    }
    assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);

    let mut certified_away = batch_completing();
    certified_away
        .expect_commit()
        .times(1)
        .returning(|| ready(Err(CommitError::RolledBack)));
    let (outcomes, counted) = batch_of_members(certified_away, members_alone()).await;
    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::RolledBackAtCommit, MEMBERS)]
    );
}
