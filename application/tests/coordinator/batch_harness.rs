//! Batches of a known size for the batched coordinator's tests: a held request takes the
//! only slot while the members wait behind it; the ports' batch methods run by their
//! defaults, one call per member.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use application::ports::{FlowHooks, HookVerdict, KeyPoint};
use application::{
    BatchObserver, BatchSettings, Batching, Coordinator, CreateOrder, Outcome, RerunCause,
};
use domain::{ClientOrderRef, ExistingRecord, IdempotencyKey, NewOrder, OrderId, RecordId, Scope};
use tokio::sync::Semaphore;

use crate::support::*;
pub(crate) const MEMBERS: usize = 3;

/// What a batch was counted as.
#[derive(Default)]
pub(crate) struct Counted {
    pub(crate) ran: Mutex<Vec<usize>>,
    pub(crate) reruns: Mutex<Vec<(RerunCause, usize)>>,
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
    async fn at_key(&self, point: KeyPoint, _: &Scope, _: &IdempotencyKey) -> HookVerdict {
        if point != KeyPoint::RecordInserted {
            return HookVerdict::Continue;
        }
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
pub(crate) async fn batch_of_members(
    batch: MockTx,
    alone: impl IntoIterator<Item = MockTx>,
) -> (Vec<CreateOutcome>, Arc<Counted>) {
    batch_of_members_finding(|_| None, Some(batch), alone).await
}

/// [`batch_of_members`], the batch's read of its keys finding what `found` says of each
/// member (by its number); `batch: None` when no transaction may begin for it.
pub(crate) async fn batch_of_members_finding(
    found: impl Fn(usize) -> Option<ExistingRecord> + Send + Sync + 'static,
    batch: Option<MockTx>,
    alone: impl IntoIterator<Item = MockTx>,
) -> (Vec<CreateOutcome>, Arc<Counted>) {
    let mut reader = MockReader::new();
    reader
        .expect_find()
        .times(MEMBERS)
        .returning(move |_, key| {
            let member = key
                .as_str()
                .strip_prefix("member-")
                .and_then(|n| n.parse().ok());
            ready(Ok(member.and_then(&found)))
        });
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
    let txs = std::iter::once(tx_committing()).chain(batch).chain(alone);
    let coordinator: Arc<Coordinator<_, _, Held>> = Arc::new(
        coordinator(ScriptedUnitOfWork::of(txs), reader)
            .with_batching(batching.clone())
            .with_hooks(held.clone()),
    );
    let run = |name: String| {
        let coordinator = coordinator.clone();
        tokio::spawn(async move {
            let key = IdempotencyKey::parse(&name).unwrap();
            coordinator
                .run(&CreateOrder, &caller(), &key, &member_order(&name))
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

/// The order of the request named `name`: each with a reference of its own, as a batch's
/// members with one reference would leave all but the first to run alone.
pub(crate) fn member_order(name: &str) -> NewOrder {
    NewOrder {
        client_order_ref: ClientOrderRef::parse(&format!("REF-{name}")).unwrap(),
        ..new_order(2)
    }
}

/// A batch transaction that reserves orders 20, 21, 22 for the members.
pub(crate) fn batch_reserving() -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_reserve_order_ids().times(1).returning(|count| {
        ready(Ok((0..count as u64)
            .map(|n| OrderId::new(20 + n))
            .collect()))
    });
    tx
}

/// ... whose records, inserted complete one by one (the port's default), get ids 10, 11,
/// 12 in the members' order.
pub(crate) fn batch_inserting_records() -> MockTx {
    let mut tx = batch_reserving();
    let next = AtomicU64::new(10);
    tx.expect_insert_processing()
        .times(MEMBERS)
        .returning(move |_| ready(Ok(RecordId(next.fetch_add(1, Ordering::SeqCst)))));
    tx.expect_complete()
        .times(MEMBERS)
        .returning(|_, _| ready(Ok(1)));
    tx
}

/// ... and that writes their orders, in one insert, and their events.
pub(crate) fn batch_writing() -> MockTx {
    let mut tx = batch_inserting_records();
    tx.expect_insert_orders().times(1).returning(|orders, _| {
        let ids: Vec<u64> = orders.iter().map(|(id, _, _)| id.get()).collect();
        assert_eq!(ids, [20, 21, 22], "the reserved ids, in the members' order");
        ready(Ok(()))
    });
    tx.expect_add_event()
        .times(MEMBERS)
        .returning(|_| ready(Ok(())));
    tx
}

pub(crate) fn members_alone() -> Vec<MockTx> {
    (0..MEMBERS).map(|_| tx_committing()).collect()
}

pub(crate) fn each_ran_alone(outcomes: &[CreateOutcome]) {
    outcomes.iter().for_each(assert_executed_on_record_5);
}
