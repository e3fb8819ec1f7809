//! The cancel on every store: its locked reads and its write, and a cancel and a capture
//! of one order racing through the coordinator, where exactly one wins.

use std::sync::Arc;

use application::orders::{CancelOrder, OrderCancellation, OrderCancellations, OrderLocks};
use application::payments::CaptureAcceptance;
use application::payments::CapturePayment;
use application::ports::{RecordTx, UnitOfWork};
use application::{Caller, Coordinator, IdempotentOperation, Outcome};
use chrono::{DateTime, Utc};
use domain::Reason;
use domain::{
    ActorId, Amount, Currency, OperationState, OrderId, OrderStatus, PaymentCapture, TenantId,
};
use tests::{Backend, key};

use crate::cases::{coordinator, create};

const RACE_ROUNDS: usize = 20;

fn tenant(id: u64) -> TenantId {
    TenantId::parse(id).unwrap()
}

fn at() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 654_321_000).unwrap()
}

/// A caller of tenant 1 who may create, capture and cancel.
fn everything() -> Caller {
    Caller::new(
        tenant(1),
        ActorId::parse(1).unwrap(),
        "orders:create orders:cancel payments:create",
    )
}

pub(crate) async fn the_cancel_reads_under_lock_and_marks_the_order<B: Backend>() {
    let db = B::create().await;
    let id = create(&db, "R-1").await;
    let store = db.store();

    let mut tx = store.begin().await.unwrap();
    assert!(
        tx.lock_order(tenant(2), id).await.unwrap().is_none(),
        "another tenant's"
    );
    let found = tx.lock_order(tenant(1), id).await.unwrap().unwrap();
    assert_eq!(
        (found.order.status, found.revision),
        (OrderStatus::Active, 1)
    );
    assert_eq!(found.order.details.client_order_ref.as_str(), "R-1");
    assert_eq!(tx.blocking_capture(tenant(1), id).await.unwrap(), None);
    tx.rollback().await.unwrap();

    let capture = tests::leased::new_capture(1, id.get(), 100, at());
    let mut tx = store.begin().await.unwrap();
    tx.accept_capture(&capture).await.unwrap();
    tx.commit().await.unwrap();
    for (state, blocking) in [
        ("PENDING", Some(OperationState::Pending)),
        ("SUCCEEDED", Some(OperationState::Succeeded)),
        ("DECLINED", None),
        ("NEEDS_REVIEW", None),
    ] {
        db.run_sql(&format!("UPDATE operations SET state = '{state}'"))
            .await;
        let mut tx = store.begin().await.unwrap();
        assert_eq!(
            tx.blocking_capture(tenant(1), id).await.unwrap(),
            blocking,
            "{state}"
        );
        tx.rollback().await.unwrap();
    }

    let mut tx = store.begin().await.unwrap();
    let found = tx.lock_order(tenant(1), id).await.unwrap().unwrap();
    assert_eq!(found.revision, 2, "the capture counted as a change");
    let reason = Reason::parse("no longer wanted: é").unwrap();
    tx.mark_cancelled(tenant(1), id, at(), &reason, 3)
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let mut tx = store.begin().await.unwrap();
    let cancelled = tx.lock_order(tenant(1), id).await.unwrap().unwrap();
    tx.rollback().await.unwrap();
    assert_eq!(cancelled.order.status, OrderStatus::Cancelled);
    assert_eq!(cancelled.order.cancelled_at, Some(at()));
    assert_eq!(cancelled.revision, 3);
    assert_eq!(
        db.count_rows(&format!(
            "orders WHERE id = {} AND cancel_reason = X'{}'",
            id.get(),
            tests::hex(reason.as_str())
        ))
        .await,
        1,
        "the reason is kept, as sent"
    );

    let mut tx = store.begin().await.unwrap();
    assert!(
        tx.mark_cancelled(tenant(1), id, at(), &reason, 4)
            .await
            .is_err(),
        "a cancelled order is never marked again"
    );
    tx.rollback().await.unwrap();
    db.finish().await;
}

/// How a round starts its two sides. The races alone may always fall one way on a store
/// (its scheduling favours one side), so two rounds run one side first: each side is then
/// seen to win, and the other to be refused, whatever the races did.
#[derive(Clone, Copy, Debug)]
enum Start {
    Together,
    CancelFirst,
    CaptureFirst,
}

pub(crate) async fn a_cancel_and_a_capture_of_one_order_never_both_win<B: Backend>() {
    let db = B::create().await;
    let coordinator = Arc::new(coordinator(&db));
    let starts = std::iter::repeat_n(Start::Together, RACE_ROUNDS)
        .chain([Start::CancelFirst, Start::CaptureFirst]);
    let (mut cancels_won, mut rounds) = (0, 0);
    for (round, start) in starts.enumerate() {
        let id = create(&db, &format!("RACE-{round}")).await;
        let (cancel, capture) = match start {
            Start::Together => {
                let barrier = Arc::new(tokio::sync::Barrier::new(2));
                let cancel = tokio::spawn({
                    let (coordinator, barrier) = (coordinator.clone(), barrier.clone());
                    async move {
                        barrier.wait().await;
                        cancel::<B>(&coordinator, id, round).await
                    }
                });
                let capture = tokio::spawn({
                    let coordinator = coordinator.clone();
                    async move {
                        barrier.wait().await;
                        capture::<B>(&coordinator, id, round).await
                    }
                });
                (cancel.await.unwrap(), capture.await.unwrap())
            }
            Start::CancelFirst => {
                let cancel = cancel::<B>(&coordinator, id, round).await;
                (cancel, capture::<B>(&coordinator, id, round).await)
            }
            Start::CaptureFirst => {
                let capture = capture::<B>(&coordinator, id, round).await;
                (cancel::<B>(&coordinator, id, round).await, capture)
            }
        };
        let won = (
            matches!(cancel, Outcome::Executed { .. }),
            matches!(capture, Outcome::Executed { .. }),
        );
        assert!(
            won == (true, false) || won == (false, true),
            "round {round} ({start:?}): cancel {cancel:?}, capture {capture:?}"
        );
        cancels_won += usize::from(won.0);
        rounds += 1;
    }
    eprintln!("cancels won {cancels_won} of {RACE_ROUNDS} races and 2 ordered rounds");
    assert!(
        (1..rounds).contains(&cancels_won),
        "each side won at least once: {cancels_won} cancels of {rounds}"
    );
    assert_eq!(
        db.count_rows("orders WHERE status = 'CANCELLED'").await,
        i64::try_from(cancels_won).unwrap()
    );
    assert_eq!(
        db.count_rows("operations").await,
        i64::try_from(rounds - cancels_won).unwrap()
    );
    db.finish().await;
}

type Store<B> = <B as Backend>::Store;

async fn cancel<B: Backend>(
    coordinator: &Coordinator<Store<B>, Store<B>>,
    order: OrderId,
    round: usize,
) -> Outcome<<CancelOrder as IdempotentOperation>::Refusal> {
    let input = OrderCancellation {
        order,
        reason: Reason::parse("race").unwrap(),
    };
    coordinator
        .run(
            &CancelOrder,
            &everything(),
            &key(&format!("c-{round}")),
            &input,
        )
        .await
}

async fn capture<B: Backend>(
    coordinator: &Coordinator<Store<B>, Store<B>>,
    order: OrderId,
    round: usize,
) -> Outcome<<CapturePayment as IdempotentOperation>::Refusal> {
    let input = PaymentCapture {
        order,
        amount: Amount::parse(100).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
    };
    coordinator
        .run(
            &CapturePayment,
            &everything(),
            &key(&format!("p-{round}")),
            &input,
        )
        .await
}
