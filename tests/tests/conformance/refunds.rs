//! A refund's acceptance and its end on every store (`docs/long-running-operations.md#refunds`):
//! only a succeeded capture of the tenant's order is refundable, the refunds not declined
//! stay within what it captured, going over is the key's stored answer, a declined refund
//! gives its amount back and a succeeded one is a refund row with its event.

use adapters::http::{ProblemForm, ProblemForms};
use application::payments::{RefundJob, RefundPayment, RefundRefusal, RefundRequest};
use application::ports::{Ending, OperationStore};
use application::{Caller, Outcome};
use chrono::{TimeDelta, Utc};
use domain::{
    ActorId, Amount, Currency, OrderId, OwnerId, Reason, RecordId, StoredResponse, TenantId,
};
use tests::leased::{complete_as, due};
use tests::{Backend, coordinator_on, hex, key};
use uuid::Uuid;

pub(crate) fn refunder(tenant: u64) -> Caller {
    Caller::new(
        TenantId::parse(tenant).unwrap(),
        ActorId::parse(1).unwrap(),
        "payments:refund",
    )
}

pub(crate) fn refund(order: u64, amount: i64) -> RefundRequest {
    RefundRequest {
        order: OrderId::new(order),
        amount: Amount::parse(amount).unwrap(),
        reason: Reason::parse("damaged").unwrap(),
    }
}

/// Order `order` of tenant 1 with a succeeded capture of `amount` JPY, charged as
/// `ch_<order>`.
pub(crate) async fn captured_order<B: Backend>(db: &B, order: u64, amount: u32) {
    db.run_sql(&format!(
        "INSERT INTO payments (operation_id, tenant_id, order_id, provider_charge_id, amount, \
         currency, created_at) VALUES (X'{}', 1, {order}, X'{}', {amount}, X'{}', \
         '2026-01-01 00:00:00')",
        hex(&format!("{order:016}")),
        hex(&format!("ch_{order}")),
        hex("JPY"),
    ))
    .await;
}

/// Ends the refund `id` as its worker does.
async fn end<B: Backend>(db: &B, id: Uuid, ending: Ending) {
    let store = db.store();
    let now = Utc::now() + TimeDelta::minutes(1);
    let due = due(store, now).await.unwrap();
    let operation = due.iter().find(|operation| operation.id == id).unwrap();
    let lease = operation
        .lease
        .claim(OwnerId::parse("w").unwrap(), now, TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(id, operation.lease.generation, &lease, now)
            .await
            .unwrap()
    );
    assert!(
        complete_as::<RefundPayment, _>(store, operation, &lease, &ending, 1, now)
            .await
            .unwrap()
    );
}

pub(crate) fn accepted_id(outcome: &Outcome<RefundRefusal>) -> Uuid {
    let Outcome::Executed { response, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(response.status(), 202);
    let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    body["operationId"].as_str().unwrap().parse().unwrap()
}

pub(crate) fn stored(outcome: &Outcome<RefundRefusal>) -> (RecordId, StoredResponse) {
    let Outcome::RejectedAndStored {
        refusal: RefundRefusal::ExceedsCaptured,
        record,
        response,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    (*record, response.clone())
}

pub(crate) async fn refunds_stay_within_the_capture_and_going_over_is_the_keys_answer<
    B: Backend,
>() {
    let db = B::create().await;
    db.ensure_order(1, 9).await;
    let coordinator = coordinator_on(db.store()).with_refusal_forms(ProblemForms);
    let run = async |tenant, k: &str, request: RefundRequest| {
        coordinator
            .run(&RefundPayment, &refunder(tenant), &key(k), &request)
            .await
    };

    // Nothing captured yet: refused, and the key stays free.
    assert_eq!(
        run(1, "early", refund(9, 100)).await,
        Outcome::Rejected(RefundRefusal::NotRefundable)
    );
    assert_eq!(
        run(1, "unknown", refund(10, 100)).await,
        Outcome::Rejected(RefundRefusal::OrderNotFound)
    );
    captured_order(&db, 9, 1000).await;
    assert_eq!(
        run(2, "foreign", refund(9, 100)).await,
        Outcome::Rejected(RefundRefusal::OrderNotFound),
        "another tenant's order is not there"
    );
    assert_eq!(db.total_records().await, 0);

    let six_hundred = accepted_id(&run(1, "early", refund(9, 600)).await);
    let (over_record, over) = stored(&run(1, "over", refund(9, 500)).await);
    assert_eq!(over.status(), 409);
    assert_eq!(
        over.body(),
        RefundRefusal::ExceedsCaptured
            .problem()
            .to_json()
            .as_slice()
    );
    let four_hundred = accepted_id(&run(1, "rest", refund(9, 400)).await);
    stored(&run(1, "one-more", refund(9, 1)).await);
    assert_eq!(db.count_rows("operations").await, 2);
    assert_eq!(db.count_rows("payments WHERE refunded = 1000").await, 1);

    // The job names the charge and the capture's currency.
    let due = due(db.store(), Utc::now() + TimeDelta::minutes(1))
        .await
        .unwrap();
    let job: RefundJob = serde_json::from_slice(
        &due.iter()
            .find(|operation| operation.id == four_hundred)
            .unwrap()
            .input,
    )
    .unwrap();
    assert_eq!(
        (job.charge.as_str(), job.currency, job.amount.get()),
        ("ch_9", Currency::parse("JPY").unwrap(), 400)
    );

    // Declined, the 600 is free again; the stored refusal still answers its key alike.
    end(&db, six_hundred, Ending::Declined).await;
    assert_eq!(db.count_rows("payments WHERE refunded = 400").await, 1);
    assert_eq!(
        run(1, "over", refund(9, 500)).await,
        Outcome::Replayed {
            record: over_record,
            response: over
        }
    );
    accepted_id(&run(1, "again", refund(9, 500)).await);

    // Succeeded: a refund row and its event, about the order.
    end(
        &db,
        four_hundred,
        Ending::Succeeded {
            provider_id: "re_1".into(),
        },
    )
    .await;
    assert_eq!(
        db.count_rows("refunds WHERE amount = 400 AND order_id = 9")
            .await,
        1
    );
    assert_eq!(
        db.count_rows(&format!(
            "outbox WHERE event_type = X'{}' AND ordering_seq = 2",
            hex("payments.refunded.v1")
        ))
        .await,
        1
    );
    assert_eq!(db.count_rows("payments WHERE refunded = 900").await, 1);
    db.finish().await;
}
