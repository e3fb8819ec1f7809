//! Same-key storms across nodes: a duplicate on another node does not wait for the first
//! one, it runs its whole transaction and loses at certification (1213, mostly at
//! COMMIT). The coordinator runs it again, finds the winner and replays it.

use tests::{Api, PauseDir, order_json, token};

use crate::support::{Rig, at_once};

const ROUNDS: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nine_identical_requests_over_three_nodes_make_one_order_and_no_5xx() {
    let rig = Rig::new().await;
    for round in 0..ROUNDS {
        let reference = format!("S-{round}");
        let body = order_json(&reference, "SKU-1", 1);
        let answers = at_once(&rig, &reference, vec![body; 9]).await;
        assert!(
            answers
                .iter()
                .all(|(status, _)| *status == 201 || *status == 409),
            "round {round}: {answers:?}"
        );
        assert!(
            answers.iter().any(|(status, _)| *status == 201),
            "round {round}"
        );
        let orders = rig.orders_for(&reference).await;
        assert_eq!(orders.len(), 1, "round {round}: {orders:?}");
    }
    rig.assert_legal("nine_identical_requests_over_three_nodes_make_one_order_and_no_5xx")
        .await;
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nine_different_bodies_under_one_key_make_one_order_the_rest_key_reused() {
    let rig = Rig::new().await;
    for round in 0..ROUNDS {
        let reference = format!("D-{round}");
        let bodies = (1..=9)
            .map(|q| order_json(&reference, "SKU-1", q))
            .collect();
        let answers = at_once(&rig, &reference, bodies).await;
        let created = answers.iter().filter(|(status, _)| *status == 201).count();
        assert_eq!(created, 1, "round {round}: {answers:?}");
        assert!(
            answers.iter().all(|(status, code)| *status == 201
                || (*status == 422 && code.as_deref() == Some("idempotency_key_reused"))
                || (*status == 409 && code.as_deref() == Some("request_in_progress"))),
            "round {round}: {answers:?}"
        );
        assert_eq!(rig.orders_for(&reference).await.len(), 1, "round {round}");
    }
    rig.assert_legal("nine_different_bodies_under_one_key_make_one_order_the_rest_key_reused")
        .await;
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transaction_that_loses_certification_runs_again_counted_and_replays_the_winner() {
    let pause = PauseDir::new();
    let rig = Rig::pausing_on_node_1(&pause).await;
    let (first, second) = (rig.recording(1), rig.recording(2));
    let (key, body) = ("pause-certify", order_json("CERT-1", "SKU-1", 1));
    let bearer = token(1, 1, "orders:create orders:read");
    // Node 1's transaction holds the key's record, uncommitted, while node 2 (which cannot
    // see it: Galera locks nothing across nodes) commits the same key.
    let held = {
        let (first, bearer, body) = (first.clone(), bearer.clone(), body.clone());
        std::thread::spawn(move || first.create(&bearer, key, &body))
    };
    pause.wait_until_paused(key);
    let winner = second.create(&bearer, key, &body);
    assert_eq!(winner.status, 201);
    assert_eq!(retries(&first), 0.0);
    pause.release(key);
    let loser = held.join().unwrap();

    // Node 2's write set aborted node 1's transaction (1213); it ran again and replayed.
    assert_eq!(retries(&first), 1.0, "the rerun is counted where it ran");
    assert_eq!(retries(&second), 0.0);
    assert_eq!(loser.status, 201);
    assert_eq!(loser.header("idempotent-replayed").as_deref(), Some("true"));
    assert_eq!(loser.body, winner.body);
    assert_eq!(rig.orders_for("CERT-1").await.len(), 1);
    rig.assert_legal(
        "a_transaction_that_loses_certification_runs_again_counted_and_replays_the_winner",
    )
    .await;
    rig.finish().await;
}

/// `idempotent_transaction_retries_total` as a process's metrics say.
fn retries(api: &Api) -> f64 {
    api.metric("idempotent_transaction_retries_total")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_thousand_distinct_creates_over_three_nodes_all_succeed() {
    const CREATES: usize = 3000;
    const THREADS: usize = 30;
    let rig = Rig::new().await;
    let urls: Vec<String> = (1..=3).map(|n| rig.url(n)).collect();
    let statuses = tokio::task::spawn_blocking(move || {
        let bearer = token(1, 1, "orders:create orders:read");
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            let senders: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (api, bearer) = (Api::new(&urls[t % 3]), &bearer);
                    scope.spawn(move || {
                        (t..CREATES)
                            .step_by(THREADS)
                            .map(|i| {
                                let reference = format!("M-{i}");
                                api.create(bearer, &reference, &order_json(&reference, "SKU-1", 1))
                                    .status
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            senders
                .into_iter()
                .flat_map(|s| s.join().unwrap())
                .collect()
        });
        let retried: f64 = urls.iter().map(|u| retries(&Api::new(u))).sum();
        eprintln!("{CREATES} creates over 3 nodes: {retried} transactions rerun after a 1213");
        statuses
    })
    .await
    .unwrap();
    assert_eq!(statuses.len(), CREATES);
    assert!(statuses.iter().all(|s| *s == 201), "every create 201");
    assert_eq!(
        rig.db.count("SELECT COUNT(*) AS n FROM orders").await,
        CREATES as i64
    );
    rig.finish().await;
}
