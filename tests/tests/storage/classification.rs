//! Other unique indexes, other scopes: never taken for a replay.

use application::{CreateOrder, CreateRefusal, Outcome};
use tests::{TestDb, caller, key, new_order};

#[tokio::test]
async fn a_client_order_ref_taken_by_another_key_is_a_conflict_not_a_replay() {
    let db = TestDb::create().await;
    let coordinator = db.coordinator();
    let who = caller(1, 1);
    let order = new_order("REF-SHARED", 2);
    let first = coordinator
        .run(&CreateOrder, &who, &key("first"), &order)
        .await;
    assert!(matches!(first, Outcome::Executed { .. }), "{first:?}");

    let second = coordinator
        .run(&CreateOrder, &who, &key("second"), &order)
        .await;

    assert_eq!(
        second,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert!(
        db.records(&who, &key("second")).await.is_empty(),
        "rolled back"
    );
    db.assert_exactly_one_order(&who, &key("first"), &order, &[first])
        .await;
    db.drop_database().await;
}

#[tokio::test]
async fn the_same_key_in_another_tenant_is_a_separate_order() {
    let db = TestDb::create().await;
    let coordinator = db.coordinator();
    let order = new_order("REF-1", 2);
    let k = key("shared-key");
    let a = coordinator
        .run(&CreateOrder, &caller(1, 1), &k, &order)
        .await;
    let b = coordinator
        .run(&CreateOrder, &caller(2, 1), &k, &order)
        .await;

    assert!(matches!(a, Outcome::Executed { .. }), "{a:?}");
    assert!(matches!(b, Outcome::Executed { .. }), "{b:?}");
    db.assert_exactly_one_order(&caller(1, 1), &k, &order, &[a])
        .await;
    db.assert_exactly_one_order(&caller(2, 1), &k, &order, &[b])
        .await;
    db.drop_database().await;
}

#[tokio::test]
async fn the_same_key_by_another_actor_is_a_separate_request() {
    let db = TestDb::create().await;
    let coordinator = db.coordinator();
    let k = key("shared-key");
    let first = new_order("REF-A", 2);
    let a = coordinator
        .run(&CreateOrder, &caller(1, 1), &k, &first)
        .await;
    // Another actor's same key is not a replay of the first actor's result ...
    let same_body = coordinator
        .run(&CreateOrder, &caller(1, 2), &k, &first)
        .await;
    // ... and with its own reference it is an order of its own.
    let second = new_order("REF-B", 2);
    let b = coordinator
        .run(&CreateOrder, &caller(1, 2), &k, &second)
        .await;

    assert!(matches!(a, Outcome::Executed { .. }), "{a:?}");
    assert_eq!(
        same_body,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert!(matches!(b, Outcome::Executed { .. }), "{b:?}");
    db.assert_exactly_one_order(&caller(1, 1), &k, &first, &[a])
        .await;
    db.assert_exactly_one_order(&caller(1, 2), &k, &second, &[b])
        .await;
    db.drop_database().await;
}

#[tokio::test]
async fn a_sequential_retry_replays_the_stored_bytes_and_another_body_is_key_reuse() {
    let db = TestDb::create().await;
    let coordinator = db.coordinator();
    let (who, k, order) = (caller(1, 1), key("retry"), new_order("REF-1", 2));
    let first = coordinator.run(&CreateOrder, &who, &k, &order).await;
    let retry = coordinator.run(&CreateOrder, &who, &k, &order).await;
    let reused = coordinator
        .run(&CreateOrder, &who, &k, &new_order("REF-1", 3))
        .await;

    let (Outcome::Executed { response: a, .. }, Outcome::Replayed { response: b, .. }) =
        (&first, &retry)
    else {
        panic!("{first:?} / {retry:?}");
    };
    assert_eq!(a, b, "byte-identical status, headers and body");
    assert_eq!(reused, Outcome::KeyReused);
    db.assert_exactly_one_order(&who, &k, &order, &[first, retry])
        .await;
    db.drop_database().await;
}
