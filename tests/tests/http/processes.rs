//! Several server processes on one database, crashes, shutdown, and the command line.

use std::sync::Barrier;
use std::thread;
use std::time::Duration;

use tests::{
    Api, FinalState, History, PauseDir, Service, ServiceOptions, TEST_SECRET, TestDb, assert_legal,
    eventually, order_json, run_command,
};

use crate::support::{App, full_token};

const ROUNDS: usize = 20;
const REQUESTS_PER_PROCESS: usize = 4;

#[tokio::test]
async fn two_processes_given_the_same_key_at_once_create_one_order() {
    let db = TestDb::create().await;
    let options = ServiceOptions::new(db.url());
    let services = [Service::start(&options), Service::start(&options)];
    let history = History::new();
    let clients: Vec<Api> = services
        .iter()
        .map(|s| Api::new(s.base_url()).recording(&history))
        .collect();
    let token = full_token();

    for round in 0..ROUNDS {
        let key = format!("race-{round}");
        let client_order_ref = format!("REF-{round}");
        let body = order_json(&client_order_ref, "SKU-1", 1);
        let barrier = Barrier::new(clients.len() * REQUESTS_PER_PROCESS);
        let replies = thread::scope(|s| {
            let handles: Vec<_> = clients
                .iter()
                .flat_map(|client| std::iter::repeat_n(client, REQUESTS_PER_PROCESS))
                .map(|client| {
                    s.spawn(|| {
                        barrier.wait();
                        client.create(&token, &key, &body)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        });
        let executed = replies
            .iter()
            .filter(|r| r.status == 201 && r.header("idempotent-replayed").is_none())
            .count();
        assert_eq!(executed, 1, "round {round}: exactly one execution");
        for reply in &replies {
            assert_eq!(reply.status, 201, "round {round}: {:?}", reply.code());
            assert_eq!(reply.body, replies[0].body, "round {round}: one answer");
        }
        assert_eq!(
            db.order_ids(1, &client_order_ref).await.len(),
            1,
            "round {round}"
        );
    }
    drop(services);
    assert_legal(
        &history,
        &FinalState::read(&db).await,
        "two_processes_given_the_same_key_at_once_create_one_order",
    );
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_inside_its_transaction_leaves_the_retry_to_execute_once() {
    let db = TestDb::create().await;
    let survivor = Service::start(&ServiceOptions {
        lock_wait_secs: 60,
        ..ServiceOptions::new(db.url())
    });
    let history = History::new();
    let survivor_api = Api::new(survivor.base_url()).recording(&history);
    let token = full_token();

    for round in 0..3 {
        let pause = PauseDir::new();
        let mut doomed = Service::start(&ServiceOptions {
            pause_dir: Some(pause.path().to_owned()),
            ..ServiceOptions::new(db.url())
        });
        let key = format!("pause-crash-{round}");
        let client_order_ref = format!("REF-{round}");
        let body = order_json(&client_order_ref, "SKU-1", 1);
        let send = |api: Api| {
            let (token, key, body) = (token.clone(), key.clone(), body.clone());
            tokio::task::spawn_blocking(move || api.try_send_create(&token, &key, &body))
        };

        let lost = send(Api::new(doomed.base_url()).recording(&history));
        pause.wait_until_paused(&key);
        let retry = send(survivor_api.clone());
        // The survivor's insert now waits on the doomed process's uncommitted key.
        db.wait_for_lock_waiters(1).await;
        doomed.kill();

        assert!(lost.await.unwrap().is_err(), "the killed process answered");
        let retry = retry.await.unwrap().unwrap();
        assert_eq!(retry.status, 201, "round {round}: {:?}", retry.code());
        assert_eq!(retry.header("idempotent-replayed"), None, "round {round}");
        let again = survivor_api.create(&token, &key, &body);
        assert_eq!(again.body, retry.body, "round {round}");
        assert_eq!(
            db.order_ids(1, &client_order_ref).await.len(),
            1,
            "round {round}"
        );
    }
    drop(survivor);
    assert_legal(
        &history,
        &FinalState::read(&db).await,
        "a_process_killed_inside_its_transaction_leaves_the_retry_to_execute_once",
    );
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_lets_the_request_in_flight_finish() {
    let pause = PauseDir::new();
    let mut app = App::start_with(|o| o.pause_dir = Some(pause.path().to_owned())).await;
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    let reply = thread::scope(|s| {
        let request = s.spawn(|| app.api.create(&token, "pause-shutdown", &body));
        pause.wait_until_paused("pause-shutdown");
        app.service.terminate();
        app.service
            .wait_for_log("shutdown signal received")
            .expect("the server saw SIGTERM");
        pause.release("pause-shutdown");
        request.join().unwrap()
    });
    assert_eq!(reply.status, 201, "{:?}", reply.code());
    assert!(app.service.wait().success(), "a clean exit");
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    app.finish().await;
}

/// Expiry in real time (a record kept one second), not a rewritten `expires_at`: the
/// server's copy of a completed record is bounded by the expiry it was stored with, so
/// the retry after the purge must reach the database even with the replay cache on.
#[tokio::test]
async fn after_a_purge_the_same_key_meets_the_client_order_ref_and_creates_nothing() {
    // The copy's own time to live is long: only the record's expiry can end it.
    let app = App::start_with(|o| {
        o.env
            .push(("IDEMPOTENCY_RETENTION_SECS".into(), "1".into()));
        o.env.push(("REPLAY_CACHE_TTL_SECS".into(), "600".into()));
    })
    .await;
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    assert_eq!(app.api.create(&token, "purged-1", &body).status, 201);
    for _ in 0..2 {
        assert_eq!(
            app.api.create(&token, "purged-1", &body).status,
            201,
            "a replay"
        );
    }
    assert_eq!(
        app.api.metric("idempotent_replay_cache_hits_total"),
        1.0,
        "the second replay met the copy the first one left"
    );
    let expired = eventually(Duration::from_secs(30), async || {
        let expired =
            "SELECT COUNT(*) AS n FROM api_idempotency WHERE expires_at < UTC_TIMESTAMP(6)";
        (app.db.count(expired).await == 1).then_some(())
    })
    .await;
    assert!(expired.is_some(), "the record expires within its second");

    let (status, _, stderr) = run_command(&["purge"], &[("DATABASE_URL", app.db.url())]);
    assert!(status.success(), "{stderr}");
    assert_eq!(app.db.total_records().await, 0);

    let reply = app.api.create(&token, "purged-1", &body);
    assert_eq!(
        reply.status_code(),
        (409, Some("client_order_ref_conflict".into()))
    );
    assert_eq!(app.db.total_orders().await, 1);
    app.finish().await;
}

#[tokio::test]
async fn bad_configuration_stops_the_start_and_names_the_variable() {
    let db = TestDb::create().await;
    let good = [
        ("DATABASE_URL", db.url()),
        ("AUTH_JWT_SECRET", TEST_SECRET),
        ("BIND_ADDR", "127.0.0.1:0"),
    ];
    let cases = [
        ("LOCK_WAIT_TIMEOUT_SECS", "soon"),
        ("IDEMPOTENCY_RETENTION_SECS", "0"),
        ("PURGE_INTERVAL_SECS", "-5"),
        ("BIND_ADDR", "not-an-address"),
        ("AUTH_JWT_SECRET", "too-short"),
        (
            "DATABASE_URL",
            "mysql://root@127.0.0.1:1/nowhere?prefer_socket=false",
        ),
    ];
    for (variable, value) in cases {
        let mut env: Vec<(&str, &str)> = good
            .iter()
            .filter(|(k, _)| *k != variable)
            .copied()
            .collect();
        env.push((variable, value));
        let (status, _, stderr) = run_command(&["serve"], &env);
        assert!(!status.success(), "{variable} accepted");
        assert!(stderr.contains(variable), "{variable} not named: {stderr}");
        assert!(
            !stderr.contains(TEST_SECRET) && !stderr.contains(db.url()),
            "{stderr}"
        );
    }
    let (status, _, stderr) = run_command(&["serve"], &[("DATABASE_URL", db.url())]);
    assert!(
        !status.success() && stderr.contains("AUTH_JWT_SECRET"),
        "{stderr}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_token_from_the_command_line_is_accepted_by_the_server() {
    let app = App::start().await;
    let (status, stdout, stderr) = run_command(
        &[
            "token",
            "--tenant",
            "5",
            "--actor",
            "6",
            "--scope",
            "orders:create orders:read",
        ],
        &[("AUTH_JWT_SECRET", TEST_SECRET)],
    );
    assert!(status.success(), "{stderr}");
    let token = stdout.trim();
    let created = app
        .api
        .create(token, "cli-1", &order_json("REF-1", "SKU-1", 1));
    assert_eq!(created.status, 201);
    assert_eq!(app.db.order_ids(5, "REF-1").await.len(), 1);
    let location = created.header("location").unwrap();
    assert_eq!(app.api.get(&location, Some(token)).body, created.body);
    app.finish().await;
}

/// An eviction reaches the copies of the process it went through, and no other: another
/// process answers from its own copy until its time to live passes, and the command line
/// reaches none (`docs/admin.md#idempotency-records`).
#[tokio::test]
async fn an_eviction_reaches_its_own_process_s_copy_and_others_only_after_their_time_to_live() {
    let db = TestDb::create().await;
    let with_ttl = |secs: &str| {
        let mut options = ServiceOptions::new(db.url());
        options
            .env
            .push(("REPLAY_CACHE_TTL_SECS".into(), secs.into()));
        Service::start(&options)
    };
    let services = [with_ttl("600"), with_ttl("600"), with_ttl("1")];
    let [a, b, short] = [0, 1, 2].map(|n| Api::new(services[n].base_url()));
    let token = full_token();
    let admin = tests::token(1, 9, "admin:read admin:write");
    let hits = |api: &Api| api.metric("idempotent_replay_cache_hits_total");
    let evict_path = |key: &str| {
        format!("/api/admin/idempotency-keys?tenant=1&actor=1&operation=orders.create.v1&key={key}")
    };
    let replayed_twice = |api: &Api, key: &str, body: &str| {
        for _ in 0..2 {
            let reply = api.create(&token, key, body);
            assert_eq!(reply.header("idempotent-replayed").as_deref(), Some("true"));
        }
    };

    // Evicted through A: B still answers from its copy.
    let body = order_json("EV-1", "SKU-1", 1);
    assert_eq!(a.create(&token, "ev-1", &body).status, 201);
    replayed_twice(&b, "ev-1", &body);
    assert_eq!(hits(&b), 1.0);
    let evicted = a.admin("DELETE", &evict_path("ev-1"), &admin, None);
    assert_eq!(evicted.status, 200);
    let other = order_json("EV-1b", "SKU-1", 1);
    assert_eq!(
        b.create(&token, "ev-1", &other).code().as_deref(),
        Some("idempotency_key_reused"),
        "B's copy still speaks for the key"
    );
    assert_eq!(
        a.create(&token, "ev-1", &other).status,
        201,
        "A's copy went with it"
    );

    // Evicted from the command line: no process's copy goes, and the copy of a process
    // with a short time to live ends with it.
    let body = order_json("EV-2", "SKU-1", 1);
    assert_eq!(short.create(&token, "ev-2", &body).status, 201);
    replayed_twice(&short, "ev-2", &body);
    replayed_twice(&a, "ev-2", &body);
    let (status, _, stderr) = run_command(
        &[
            "admin",
            "--operator",
            "ops",
            "keys",
            "evict",
            "--tenant",
            "1",
            "--actor",
            "1",
            "--operation",
            "orders.create.v1",
            "--key",
            "ev-2",
        ],
        &[("DATABASE_URL", db.url())],
    );
    assert!(status.success(), "{stderr}");
    let other = order_json("EV-2b", "SKU-1", 1);
    assert_eq!(
        a.create(&token, "ev-2", &other).code().as_deref(),
        Some("idempotency_key_reused"),
        "A's copy outlives an eviction it never heard of"
    );
    let executed = eventually(Duration::from_secs(30), async || {
        let reply = short.create(&token, "ev-2", &other);
        (reply.status == 201).then_some(reply)
    })
    .await
    .expect("the short-lived copy never ended");
    assert!(executed.header("idempotent-replayed").is_none());
    drop(services);
    db.drop_database().await;
}
