//! The upgrade to operations of every kind (migration `2026-12-03-000010`) on the captures an
//! older version left: each reads back with its job and result, is worked to its end, and
//! still holds its order against a second capture.

use application::StepError;
use application::payments::{CaptureAcceptance, CaptureJob, CaptureRefusal};
use application::ports::{Ending, OperationReader, OperationStore, RecordTx, UnitOfWork};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{Amount, Currency, OperationState, OwnerId, TenantId};
use tests::Backend;
use tests::leased::{complete, due, new_capture};
use uuid::Uuid;

use crate::acceptance::add_order;

/// The last migration an older version ran.
const BEFORE: &str = "2026-12-03-000009";

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

/// A pending capture (7) and a succeeded one with its payment (8), in the old columns.
async fn old_captures<B: Backend>(db: &B) {
    for (n, order, state) in [(7, 9, "PENDING"), (8, 10, "SUCCEEDED")] {
        db.run_sql(&format!(
            "INSERT INTO operations (id, operation_type, tenant_id, order_id, amount, currency, \
             downstream_key, state, generation, attempts, next_attempt_at, created_at, \
             updated_at) VALUES (X'{n:032x}', X'7061796d656e74732e636170747572652e7631', 1, \
             {order}, 1500, X'4a5059', X'6b65792d{n:02x}', '{state}', 0, 0, \
             '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        ))
        .await;
    }
    db.run_sql(
        "INSERT INTO payments (operation_id, tenant_id, order_id, provider_charge_id, amount, \
         currency, created_at) VALUES (X'00000000000000000000000000000008', 1, 10, \
         X'63685f38', 1500, X'4a5059', '2026-01-01 00:00:01')",
    )
    .await;
}

pub(crate) async fn captures_accepted_before_read_and_work_after_the_upgrade<B: Backend>() {
    let db = B::create_migrated_through(BEFORE).await;
    add_order(&db).await;
    old_captures(&db).await;

    let applied = db.migrate_rest().await;
    assert!(
        applied.iter().any(|name| name.contains("000010")),
        "{applied:?}"
    );

    let store = db.store();
    let tenant = TenantId::parse(1).unwrap();
    let paid = store
        .find_operation(tenant, Uuid::from_u128(8))
        .await
        .unwrap()
        .unwrap();
    let payment: serde_json::Value = paid.result.member("payment").unwrap();
    assert_eq!(
        (
            &payment["providerChargeId"],
            &payment["amount"],
            &payment["currency"]
        ),
        (&"ch_8".into(), &1500.into(), &"JPY".into())
    );
    let pending = store
        .find_operation(tenant, Uuid::from_u128(7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pending.result.get("payment"), Some("null"));

    // Its job reads as the capture's, and the pending capture still holds its order.
    let due = due(store, now()).await.unwrap();
    assert_eq!(due.len(), 1);
    let job: CaptureJob = serde_json::from_slice(&due[0].input).unwrap();
    assert_eq!(
        job,
        CaptureJob {
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    );
    let mut tx = store.begin().await.unwrap();
    let second = tx.accept_capture(&new_capture(1, 9, 100, now())).await;
    tx.rollback().await.unwrap();
    assert!(matches!(
        second,
        Err(StepError::Rejected(CaptureRefusal::PaymentExists))
    ));
    // Only captures count against it: another kind's pending operation of the order goes in.
    db.run_sql(
        "INSERT INTO operations (id, operation_type, tenant_id, order_id, input, result, \
         downstream_key, state, generation, attempts, next_attempt_at, created_at, updated_at) \
         VALUES (X'00000000000000000000000000000009', X'6f746865722e6b696e642e7631', 1, 9, \
         X'7b7d', X'7b7d', X'6b65792d39', 'PENDING', 0, 0, '2026-01-01 00:00:00', \
         '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
    )
    .await;
    assert_eq!(
        tests::leased::due(store, now()).await.unwrap().len(),
        1,
        "a kind not served here is left for a worker that serves it"
    );

    // Worked to its end as any capture accepted since.
    let lease = due[0]
        .lease
        .claim(OwnerId::parse("w").unwrap(), now(), TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(due[0].id, due[0].lease.generation, &lease, now())
            .await
            .unwrap()
    );
    let ending = Ending::Succeeded {
        provider_id: "ch_7".into(),
    };
    assert!(
        complete(store, &due[0], &lease, &ending, 0, now())
            .await
            .unwrap()
    );
    let ended = store
        .find_operation(tenant, Uuid::from_u128(7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ended.state, OperationState::Succeeded);
    let payment: serde_json::Value = ended.result.member("payment").unwrap();
    assert_eq!(payment["providerChargeId"], "ch_7");
    assert_eq!(db.count_rows("payments").await, 2);
    db.finish().await;
}
