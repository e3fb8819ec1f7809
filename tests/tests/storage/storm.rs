//! Many requests with one key at once.

use std::sync::Arc;

use application::{CreateOrder, Outcome};
use tests::{TestDb, caller, executed_count, join_all, key, new_order};

const ROUNDS: usize = 10;
const TASKS: usize = 32;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_identical_requests_at_once_create_exactly_one_order() {
    let db = TestDb::create().await;
    let coordinator = Arc::new(db.coordinator());
    for round in 0..ROUNDS {
        let who = caller(1, 1);
        let k = key(&format!("storm-{round}"));
        let order = new_order(&format!("REF-{round}"), 2);
        let barrier = Arc::new(tokio::sync::Barrier::new(TASKS));
        let tasks: Vec<_> = (0..TASKS)
            .map(|_| {
                let (coordinator, barrier) = (coordinator.clone(), barrier.clone());
                let (who, k, order) = (who.clone(), k.clone(), order.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    coordinator.run(&CreateOrder, &who, &k, &order).await
                })
            })
            .collect();
        let outcomes = join_all(tasks).await;
        assert_eq!(
            executed_count(&outcomes),
            1,
            "round {round}: {outcomes:?} ({})",
            db.context()
        );
        for outcome in &outcomes {
            assert!(
                matches!(
                    outcome,
                    Outcome::Executed { .. } | Outcome::Replayed { .. } | Outcome::InProgress
                ),
                "round {round}: {outcome:?} ({})",
                db.context()
            );
        }
        db.assert_exactly_one_order(&who, &k, &order, &outcomes)
            .await;
    }
    assert_eq!(db.total_orders().await, ROUNDS as i64);
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_key_with_different_payloads_at_once_creates_one_order_and_refuses_the_rest() {
    let db = TestDb::create().await;
    let coordinator = Arc::new(db.coordinator());
    for round in 0..ROUNDS {
        let who = caller(1, 1);
        let k = key(&format!("mixed-{round}"));
        let barrier = Arc::new(tokio::sync::Barrier::new(8));
        // Same reference, different quantities: different fingerprints.
        let tasks: Vec<_> = (1..=8)
            .map(|quantity| {
                let (coordinator, barrier) = (coordinator.clone(), barrier.clone());
                let (who, k) = (who.clone(), k.clone());
                let order = new_order(&format!("REF-{round}"), quantity);
                tokio::spawn(async move {
                    barrier.wait().await;
                    let outcome = coordinator.run(&CreateOrder, &who, &k, &order).await;
                    (order, outcome)
                })
            })
            .collect();
        let results = join_all(tasks).await;
        let winners: Vec<_> = results
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::Executed { .. }))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        for (_, outcome) in &results {
            assert!(
                matches!(
                    outcome,
                    Outcome::Executed { .. } | Outcome::KeyReused | Outcome::InProgress
                ),
                "round {round}: {outcome:?} ({})",
                db.context()
            );
        }
        let winner = &winners[0].0;
        let outcomes: Vec<_> = results.iter().map(|(_, o)| o).collect();
        db.assert_exactly_one_order(&who, &k, winner, &outcomes)
            .await;
    }
    db.drop_database().await;
}
