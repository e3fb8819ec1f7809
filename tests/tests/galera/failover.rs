//! A node killed under a steady create load: what was in flight on it ends `201` or `503
//! outcome_unknown`, retries with the same keys make exactly one order each, its process
//! keeps serving through the other nodes without a restart, and uses the node again once
//! it has rejoined.

use std::collections::HashMap;
use std::time::Duration;

use tests::{Api, order_json, token};

use crate::support::Rig;

/// Sends `count` creates with keys `prefix-i` through `api`; returns each key's status
/// and code.
fn creates(api: &Api, prefix: &str, count: usize) -> Vec<(String, u16, Option<String>)> {
    let bearer = token(1, 1, "orders:create orders:read");
    (0..count)
        .map(|i| {
            let key = format!("{prefix}-{i}");
            let reply = api.create(&bearer, &key, &order_json(&key, "SKU-1", 1));
            let (status, code) = reply.status_code();
            (key, status, code)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_costs_only_unknown_outcomes_and_its_process_moves_on() {
    let rig = Rig::with_node_lists().await;
    let api = Api::new(&rig.url(3));
    let cluster = rig.cluster.clone();
    let answers = tokio::task::spawn_blocking(move || {
        let mut answers = creates(&api, "before", 50);
        // Load on the process whose own node dies, from another thread.
        let load = std::thread::spawn(move || {
            let answers = creates(&api, "during", 300);
            (api, answers)
        });
        std::thread::sleep(Duration::from_millis(300));
        cluster.kill_node(3);
        let (api, during) = load.join().unwrap();
        answers.extend(during);
        answers.extend(creates(&api, "after", 50));
        cluster.restart_node(3);
        answers.extend(creates(&api, "rejoined", 50));
        answers
    })
    .await
    .unwrap();

    let unknown: Vec<_> = answers
        .iter()
        .filter(|(_, status, _)| *status != 201)
        .collect();
    eprintln!(
        "{} creates, {} not 201 around the kill: {:?}",
        answers.len(),
        unknown.len(),
        unknown
            .iter()
            .map(|(_, s, c)| (s, c))
            .collect::<HashMap<_, _>>()
    );
    assert!(
        unknown
            .iter()
            .all(|(_, status, code)| *status == 503 && code.as_deref() == Some("outcome_unknown")),
        "only unknown outcomes: {unknown:?}"
    );
    for phase in ["after", "rejoined"] {
        assert!(
            answers
                .iter()
                .filter(|(key, _, _)| key.starts_with(phase))
                .all(|(_, status, _)| *status == 201),
            "every create {phase} the kill succeeds"
        );
    }

    // Retries with the same keys settle every unknown outcome, exactly once.
    let api = Api::new(&rig.url(3));
    let bearer = token(1, 1, "orders:create orders:read");
    for (key, _, _) in &unknown {
        let retried = api.create(&bearer, key, &order_json(key, "SKU-1", 1));
        assert_eq!(retried.status, 201, "{key}");
    }
    for (key, _, _) in &answers {
        assert_eq!(rig.orders_for(key).await.len(), 1, "{key}: one order");
    }
    rig.finish().await;
}
