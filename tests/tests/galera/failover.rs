//! A node killed under a steady create load: a create held inside its transaction on that
//! node at the kill ends `503 outcome_unknown`, what else was in flight ends `201` or the
//! same, retries with the same keys make exactly one order each, its process keeps serving
//! through the other nodes without a restart, and goes back to the node once it rejoined.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use diesel::QueryableByName;
use diesel::sql_types::BigInt;
use tests::{Api, GaleraCluster, PauseDir, order_json, token};

use crate::support::Rig;

const DURING: usize = 300;

/// One create with key `key` through `api`: its key, status and code.
fn create(api: &Api, key: &str) -> (String, u16, Option<String>) {
    let bearer = token(1, 1, "orders:create orders:read");
    let (status, code) = api
        .create(&bearer, key, &order_json(key, "SKU-1", 1))
        .status_code();
    (key.to_owned(), status, code)
}

/// Sends `count` creates with keys `prefix-i`, counting each in `sent` as it is sent.
fn creates(
    api: &Api,
    prefix: &str,
    count: usize,
    sent: &AtomicUsize,
) -> Vec<(String, u16, Option<String>)> {
    (0..count)
        .map(|i| {
            sent.fetch_add(1, Ordering::SeqCst);
            create(api, &format!("{prefix}-{i}"))
        })
        .collect()
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Client connections node `n` holds to the database `name` (the checks' own go to node 1).
async fn clients_on(cluster: &GaleraCluster, n: usize, name: &str) -> i64 {
    use diesel_async::{AsyncConnection, AsyncMysqlConnection, RunQueryDsl};
    let mut conn = AsyncMysqlConnection::establish(&cluster.url_of(n, ""))
        .await
        .expect("connect to the node");
    let count: Count = diesel::sql_query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()",
    )
    .bind::<diesel::sql_types::Text, _>(name)
    .get_result(&mut conn)
    .await
    .expect("the node's process list");
    count.n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_costs_only_unknown_outcomes_and_its_process_moves_on_and_back() {
    let pause = Arc::new(PauseDir::new());
    let rig = Rig::with_node_lists(&pause).await;
    let api = rig.recording(3);
    let cluster = rig.cluster.clone();
    let sent = Arc::new(AtomicUsize::new(0));
    let (mut answers, held, sent_at_kill) = {
        let (api, cluster, sent) = (api.clone(), cluster.clone(), Arc::clone(&sent));
        let pause = Arc::clone(&pause);
        tokio::task::spawn_blocking(move || {
            let mut answers = creates(&api, "before", 50, &sent);
            // Held inside its transaction on node 3 when the node dies: in flight for sure.
            let held = {
                let api = api.clone();
                std::thread::spawn(move || create(&api, "pause-inflight"))
            };
            pause.wait_until_paused("pause-inflight");
            let load = {
                let (api, sent) = (api.clone(), Arc::clone(&sent));
                std::thread::spawn(move || creates(&api, "during", DURING, &sent))
            };
            // The load is under way when the node dies.
            let deadline = Instant::now() + Duration::from_secs(60);
            while sent.load(Ordering::SeqCst) < 50 + 20 {
                assert!(Instant::now() < deadline, "the load never started");
                std::thread::sleep(Duration::from_millis(1));
            }
            cluster.kill_node(3);
            let sent_at_kill = sent.load(Ordering::SeqCst) - 50;
            pause.release("pause-inflight");
            let held = held.join().unwrap();
            answers.extend(load.join().unwrap());
            answers.extend(creates(&api, "after", 50, &sent));
            (answers, held, sent_at_kill)
        })
        .await
        .unwrap()
    };
    assert_eq!(
        (held.1, held.2.as_deref()),
        (503, Some("outcome_unknown")),
        "the create in its transaction on the killed node"
    );
    assert!(
        sent_at_kill < DURING,
        "creates went on after the kill: {sent_at_kill} of {DURING} sent before it"
    );

    // Back on its node without a restart: once node 3 rejoined, the process's connections
    // are replaced by ones to its own node.
    cluster.restart_node(3);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut rejoined = 0;
    while clients_on(&cluster, 3, rig.db.name()).await == 0 {
        assert!(
            Instant::now() < deadline,
            "the process never went back to its node"
        );
        let api = api.clone();
        let key = format!("rejoined-{rejoined}");
        answers.push(
            tokio::task::spawn_blocking(move || create(&api, &key))
                .await
                .unwrap(),
        );
        rejoined += 1;
    }
    eprintln!("back on node 3 after {rejoined} creates");

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
    for phase in ["before", "after", "rejoined"] {
        assert!(
            answers
                .iter()
                .filter(|(key, _, _)| key.starts_with(phase))
                .all(|(_, status, _)| *status == 201),
            "every create {phase} the kill succeeds"
        );
    }

    // Retries with the same keys settle every unknown outcome, exactly once (the held
    // key's retry is let through its pause point at once).
    pause.release("pause-inflight");
    for (key, _, _) in unknown.into_iter().chain([&held]) {
        let (_, status, _) = create(&api, key);
        assert_eq!(status, 201, "{key}");
    }
    for (key, _, _) in answers.iter().chain([&held]) {
        assert_eq!(rig.orders_for(key).await.len(), 1, "{key}: one order");
    }
    rig.assert_legal("a_killed_node_costs_only_unknown_outcomes_and_its_process_moves_on_and_back")
        .await;
    rig.finish().await;
}
