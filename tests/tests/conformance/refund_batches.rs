//! Refund acceptances batched on every store (`docs/storage.md#batched-operations`): one
//! batch holding a member of each kind, each answered as the members run one by one in
//! arrival order would answer it, going over the capture still the key's stored answer, and
//! the batch's reservation checking every payment's balance as it writes.

use application::Outcome;
use application::payments::{RefundAcceptance, RefundPayment, RefundRefusal};
use application::ports::{HookVerdict, RecordTx, UnitOfWork};
use application::{StepError, leased::NewOperation};
use domain::Amount;
use tests::Backend;
use tests::leased::new_refund;

use crate::batch_rig::{Batch, executed};
use crate::refunds::{accepted_id, captured_order, refund, refunder, stored};

fn member(
    k: &str,
    tenant: u64,
    order: u64,
    amount: i64,
) -> (
    String,
    application::Caller,
    application::payments::RefundRequest,
) {
    (k.to_owned(), refunder(tenant), refund(order, amount))
}

pub(crate) async fn a_batch_of_refunds_answers_each_member_as_arrival_order_would<B: Backend>() {
    let db = B::create().await;
    // 20 held, 21 and 22 batched, 23 never captured, 24 asked too much, 25 done before.
    for order in 20..=25 {
        db.ensure_order(1, order).await;
        if order != 23 {
            captured_order(&db, order, 1000).await;
        }
    }
    let coordinator = tests::coordinator_on(db.store());
    let (k, caller, input) = member("done", 1, 25, 100);
    let done_answer = executed(
        coordinator
            .run(&RefundPayment, &caller, &tests::key(&k), &input)
            .await,
    );

    let batch = Batch {
        op: RefundPayment,
        first: member("h", 1, 20, 100),
        queued: vec![
            member("a1", 1, 21, 600),
            member("a2", 1, 21, 600),
            member("b", 1, 22, 300),
            member("n", 1, 23, 100),
            member("x", 2, 21, 100),
            member("c", 1, 24, 1500),
            member("done", 1, 25, 100),
        ],
    };
    let (outcomes, seen) = batch.run(db.store(), HookVerdict::Continue, || {}).await;

    for n in [0, 1, 3] {
        accepted_id(&outcomes[n]);
    }
    for n in [2, 6] {
        stored(&outcomes[n]);
    }
    assert_eq!(outcomes[4], Outcome::Rejected(RefundRefusal::NotRefundable));
    assert_eq!(outcomes[5], Outcome::Rejected(RefundRefusal::OrderNotFound));
    let Outcome::Replayed { response, .. } = &outcomes[7] else {
        panic!("{outcomes:?}")
    };
    assert_eq!(
        *response, done_answer,
        "the completed key replays its bytes"
    );
    assert_eq!(
        *seen.ran.lock().unwrap(),
        [2],
        "a1 and b, in one transaction"
    );
    assert!(seen.reruns.lock().unwrap().is_empty());

    for (order, refunded) in [(20, 100), (21, 600), (22, 300), (24, 0), (25, 100)] {
        let row = format!("payments WHERE order_id = {order} AND refunded = {refunded}");
        assert_eq!(db.count_rows(&row).await, 1, "{row}");
    }
    let refunds = |order: u64| {
        format!(
            "operations WHERE operation_type = X'{}' AND order_id = {order} \
             AND state = 'PENDING' AND input LIKE '%ch_{order}%'",
            tests::hex("payments.refund.v1")
        )
    };
    for order in [20, 21, 22, 25] {
        assert_eq!(db.count_rows(&refunds(order)).await, 1, "{order}");
    }
    assert_eq!(db.count_rows("operations").await, 4);
    db.finish().await;
}

/// Read without a lock, a balance may have moved by the batch's write: the write checks
/// each again, and one payment short refuses the whole reservation, which writes nothing.
pub(crate) async fn a_batch_reservation_goes_in_whole_or_not_at_all<B: Backend>() {
    let db = B::create().await;
    for order in [9, 10] {
        db.ensure_order(1, order).await;
        captured_order(&db, order, 1000).await;
    }
    let now = chrono::Utc::now();
    let (nine, ten) = (new_refund(1, 9, 600, now), new_refund(1, 10, 1100, now));
    let span = tracing::Span::none();
    let amount = |n| Amount::parse(n).unwrap();
    let reserve = async |accepted: &[(&NewOperation, Amount, &tracing::Span)]| {
        let mut tx = db.store().begin().await.unwrap();
        let reserved = tx.accept_refunds(accepted).await;
        match reserved {
            Ok(()) => tx.commit().await.unwrap(),
            Err(_) => tx.rollback().await.unwrap(),
        }
        reserved
    };

    let over = reserve(&[(&nine, amount(600), &span), (&ten, amount(1100), &span)]).await;
    assert!(
        matches!(
            over,
            Err(StepError::Rejected(RefundRefusal::ExceedsCaptured))
        ),
        "{over:?}"
    );
    assert_eq!(db.count_rows("payments WHERE refunded = 0").await, 2);
    assert_eq!(db.count_rows("operations").await, 0);

    let ten = new_refund(1, 10, 400, now);
    reserve(&[(&nine, amount(600), &span), (&ten, amount(400), &span)])
        .await
        .unwrap();
    for (order, refunded) in [(9, 600), (10, 400)] {
        let row = format!("payments WHERE order_id = {order} AND refunded = {refunded}");
        assert_eq!(db.count_rows(&row).await, 1, "{row}");
    }
    assert_eq!(db.count_rows("operations").await, 2);
    db.finish().await;
}
