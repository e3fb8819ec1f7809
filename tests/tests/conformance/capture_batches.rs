//! Capture acceptances batched on every store (`docs/storage.md#batched-operations`): one
//! batch holding a member of each kind, each answered as the members run one by one in
//! arrival order would answer it, and only the first capture of an order accepted.

use application::orders::{CancelOrder, OrderCancellation};
use application::payments::{CapturePayment, CaptureRefusal};
use application::ports::HookVerdict;
use application::{Caller, Outcome};
use domain::{ActorId, Amount, Currency, OrderId, PaymentCapture, Reason, TenantId};
use tests::Backend;

use crate::batch_rig::{Batch, executed, with_pending_capture};
use crate::cases::{coordinator, create};

fn capturer(tenant: u64) -> Caller {
    Caller::new(
        TenantId::parse(tenant).unwrap(),
        ActorId::parse(1).unwrap(),
        "orders:create orders:cancel payments:create",
    )
}

fn capture(k: &str, tenant: u64, order: OrderId) -> (String, Caller, PaymentCapture) {
    let input = PaymentCapture {
        order,
        amount: Amount::parse(1500).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
    };
    (k.to_owned(), capturer(tenant), input)
}

pub(crate) async fn a_batch_of_captures_answers_each_member_as_arrival_order_would<B: Backend>() {
    let db = B::create().await;
    let mut ids = Vec::new();
    for reference in ["H", "A", "B", "C", "P", "X", "D"] {
        ids.push(create(&db, reference).await);
    }
    let [held, a, b, cancelled, pending, other, done] = ids[..] else {
        unreachable!()
    };
    let cancel = OrderCancellation {
        order: cancelled,
        reason: Reason::parse("gone").unwrap(),
    };
    executed(
        coordinator(&db)
            .run(&CancelOrder, &capturer(1), &tests::key("cancel"), &cancel)
            .await,
    );
    let (k, caller, input) = capture("done", 1, done);
    let done_answer = executed(
        coordinator(&db)
            .run(&CapturePayment, &caller, &tests::key(&k), &input)
            .await,
    );
    with_pending_capture(db.store(), pending).await;

    let batch = Batch {
        op: CapturePayment,
        first: capture("h", 1, held),
        queued: vec![
            capture("a1", 1, a),
            capture("a2", 1, a),
            capture("b", 1, b),
            capture("c", 1, cancelled),
            capture("p", 1, pending),
            capture("x", 2, other),
            capture("done", 1, done),
        ],
    };
    let (outcomes, seen) = batch.run(db.store(), HookVerdict::Continue, || {}).await;

    let accepted = |n: usize| match &outcomes[n] {
        Outcome::Executed { response, .. } => response.status() == 202,
        _ => false,
    };
    assert!(accepted(0) && accepted(1) && accepted(3), "{outcomes:?}");
    let refused = |n: usize, refusal| assert_eq!(outcomes[n], Outcome::Rejected(refusal), "{n}");
    refused(2, CaptureRefusal::PaymentExists);
    refused(4, CaptureRefusal::OrderCancelled);
    refused(5, CaptureRefusal::PaymentExists);
    refused(6, CaptureRefusal::OrderNotFound);
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

    for (order, n) in [(held, 0), (a, 1), (b, 3)] {
        let Outcome::Executed { response, .. } = &outcomes[n] else {
            unreachable!()
        };
        let location = response.location().unwrap();
        let id = location.strip_prefix("/api/operations/").unwrap();
        let row = format!(
            "operations WHERE id = X'{}' AND order_id = {} AND state = 'PENDING' \
             AND operation_type = X'{}'",
            id.replace('-', ""),
            order.get(),
            tests::hex("payments.capture.v1")
        );
        assert_eq!(db.count_rows(&row).await, 1, "{row}");
        let taken = format!("orders WHERE id = {} AND revision = 2", order.get());
        assert_eq!(db.count_rows(&taken).await, 1, "{taken}");
    }
    let captures = format!(
        "operations WHERE operation_type = X'{}'",
        tests::hex("payments.capture.v1")
    );
    assert_eq!(
        db.count_rows(&captures).await,
        5,
        "held, a, b, pending's earlier and done's"
    );
    db.finish().await;
}
