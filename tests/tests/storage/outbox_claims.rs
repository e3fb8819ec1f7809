//! Relays in several processes on one MySQL database: their claims never overlap, and a
//! claim held through a slow publish never makes a create wait.

use std::collections::HashSet;
use std::time::Duration;

use application::ports::{OutboxClaim, OutboxRelayStore};
use application::{CreateRefusal, Outcome};
use chrono::Utc;
use tests::{TestDb, create_as_tenant_1};

async fn create(db: &TestDb, reference: &str) -> Outcome<CreateRefusal> {
    create_as_tenant_1(&db.coordinator(), reference, reference).await
}

#[tokio::test]
async fn concurrent_claims_take_disjoint_batches() {
    let db = TestDb::create().await;
    for round in 0..20 {
        for i in 0..6 {
            let outcome = create(&db, &format!("R-{round}-{i}")).await;
            assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
        }
        let (a, b) = tokio::join!(db.store().claim(4), db.store().claim(4));
        let (a, b) = (a.unwrap(), b.unwrap());
        let ids_a: HashSet<_> = a.events().iter().map(|e| e.id).collect();
        let ids_b: HashSet<_> = b.events().iter().map(|e| e.id).collect();
        assert!(
            ids_a.is_disjoint(&ids_b),
            "round {round}: a row claimed twice"
        );
        assert_eq!(
            ids_a.len() + ids_b.len(),
            6,
            "round {round}: every row claimed once"
        );
        let (a_ids, b_ids): (Vec<_>, Vec<_>) =
            (ids_a.into_iter().collect(), ids_b.into_iter().collect());
        a.settle(&a_ids, &[], Utc::now()).await.unwrap();
        b.settle(&b_ids, &[], Utc::now()).await.unwrap();
    }
    assert_eq!(db.store().pending().await.unwrap().count, 0);
    db.drop_database().await;
}

#[tokio::test]
async fn a_held_claim_never_makes_a_create_wait() {
    // A 1 s lock wait: a create blocked by the claim would answer "in progress".
    let db = TestDb::with_lock_wait(1).await;
    for i in 0..3 {
        create(&db, &format!("BEFORE-{i}")).await;
    }
    let claim = db.store().claim(10).await.unwrap();
    assert_eq!(claim.events().len(), 3);
    for i in 0..5 {
        let outcome =
            tokio::time::timeout(Duration::from_secs(5), create(&db, &format!("DURING-{i}")))
                .await
                .expect("a create never waits for a relay");
        assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
    }
    let ids: Vec<_> = claim.events().iter().map(|e| e.id).collect();
    claim.settle(&ids, &[], Utc::now()).await.unwrap();
    assert_eq!(db.store().pending().await.unwrap().count, 5);
    db.drop_database().await;
}

#[tokio::test]
async fn a_claim_dropped_without_settling_leaves_every_event_pending() {
    let db = TestDb::create().await;
    for i in 0..3 {
        create(&db, &format!("R-{i}")).await;
    }
    let claim = db.store().claim(10).await.unwrap();
    assert_eq!(claim.events().len(), 3);
    drop(claim);
    let again = db.store().claim(10).await.unwrap();
    assert_eq!(
        again.events().len(),
        3,
        "the dead relay's rows are claimable again"
    );
    drop(again);
    db.drop_database().await;
}
