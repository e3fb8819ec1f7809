//! A database that falls silent (no reset, no reply: a blackholed route, a frozen host)
//! holds no request longer than one deadline (`docs/http-api.md#deadlines`), and the
//! process keeps serving what does not need it. The fault proxy stops forwarding without
//! closing anything.

use std::thread;
use std::time::{Duration, Instant};

use tests::{CommitFault, FaultProxy, Reply, TestServer, order_json, url_via};

use crate::support::{App, full_token, retry_while_unavailable};

/// `DATABASE_TIMEOUT_SECS` of these servers (their lock wait is 1 s).
const DEADLINE: Duration = Duration::from_secs(2);
/// What a loaded two-core machine may add to a deadline before the answer is out.
const MARGIN: Duration = Duration::from_millis(1500);

/// A server whose database is reached through a fault proxy, with a 2 s deadline.
async fn app_behind_a_proxy() -> (FaultProxy, App) {
    let proxy = FaultProxy::start(TestServer::from_env().socket_addr());
    let app = App::start_with(|o| {
        o.database_url = url_via(&o.database_url, proxy.address());
        o.lock_wait_secs = 1;
        o.env.push((
            "DATABASE_TIMEOUT_SECS".into(),
            DEADLINE.as_secs().to_string(),
        ));
    })
    .await;
    (proxy, app)
}

/// Sends, and asserts the answer came within the deadline plus the margin.
fn within_the_deadline(what: &str, send: impl FnOnce() -> Reply) -> Reply {
    let started = Instant::now();
    let reply = send();
    let took = started.elapsed();
    assert!(
        took <= DEADLINE + MARGIN,
        "{what} took {took:?} against a {DEADLINE:?} deadline"
    );
    reply
}

#[tokio::test]
async fn silence_at_the_commit_is_503_within_the_deadline_and_the_retry_finds_one_order() {
    let (proxy, app) = app_behind_a_proxy().await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);

    proxy.fail_next_commit(CommitFault::Silence);
    let reply = within_the_deadline("a create silenced at COMMIT", || {
        api.create(&token, "silent-commit", &body)
    });
    assert_eq!(
        proxy.commit_faults_fired(),
        1,
        "the silence began at COMMIT"
    );
    assert_eq!(reply.status_code(), (503, Some("outcome_unknown".into())));
    let request_id = reply.header("x-request-id").unwrap();
    app.service
        .wait_for_log(r#"statement="commit""#)
        .unwrap_or_else(|log| panic!("no deadline line for the COMMIT:\n{log}"));
    let log = app.service.log();
    assert!(
        log.lines()
            .any(|l| l.contains(r#"statement="commit""#) && l.contains(&request_id)),
        "the deadline line names the request:\n{log}"
    );

    // The held COMMIT reaches the server when the silence ends, or the server rolls the
    // transaction back on the closed connection first: the retry replays or executes,
    // and either way there is one order.
    proxy.speak_again();
    let retry = retry_while_unavailable(|| api.create(&token, "silent-commit", &body));
    assert_eq!(retry.status, 201);
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1, "one order");
    assert_eq!(app.db.total_records().await, 1, "one record");
    app.assert_legal(
        &history,
        "silence_at_the_commit_is_503_within_the_deadline_and_the_retry_finds_one_order",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn silence_before_the_first_statement_is_503_within_the_deadline_and_probes_still_answer() {
    let (proxy, app) = app_behind_a_proxy().await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    // Warm the pool, so the silent read meets an open connection, not a connect.
    assert_eq!(app.api.get("/readyz", None).status, 200);

    proxy.silence();
    let reply = within_the_deadline("a create on a silent database", || {
        api.create(&token, "silent-first", &body)
    });
    assert_eq!(reply.status_code(), (503, Some("outcome_unknown".into())));
    let started = Instant::now();
    assert_eq!(app.api.get("/healthz", None).status, 200);
    assert_eq!(app.api.get("/metrics", None).status, 200);
    assert!(
        started.elapsed() < DEADLINE,
        "/healthz and /metrics do not wait on the database"
    );

    proxy.speak_again();
    let retry = retry_while_unavailable(|| api.create(&token, "silent-first", &body));
    assert_eq!(retry.status, 201);
    assert_eq!(retry.header("idempotent-replayed"), None, "nothing had run");
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    app.assert_legal(
        &history,
        "silence_before_the_first_statement_is_503_within_the_deadline_and_probes_still_answer",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn a_read_and_the_readiness_probe_on_a_silent_database_answer_503_within_the_deadline() {
    let (proxy, app) = app_behind_a_proxy().await;
    let token = full_token();
    let created = app
        .api
        .create(&token, "read-1", &order_json("REF-1", "SKU-1", 2));
    let location = created.header("location").unwrap();

    proxy.silence();
    let read = within_the_deadline("a read on a silent database", || {
        app.api.get(&location, Some(&token))
    });
    assert_eq!(read.status_code(), (503, Some("unavailable".into())));
    let ready = within_the_deadline("/readyz on a silent database", || {
        app.api.get("/readyz", None)
    });
    assert_eq!(ready.status, 503);

    proxy.speak_again();
    let read = retry_while_unavailable(|| app.api.get(&location, Some(&token)));
    assert_eq!((read.status, &read.body), (200, &created.body));
    app.finish().await;
}

#[tokio::test]
async fn a_storm_on_a_silent_database_is_all_503_within_the_deadline_and_the_pool_recovers() {
    const STORM: usize = 32;
    let (proxy, app) = app_behind_a_proxy().await;
    let (history, api) = app.recording();
    let token = full_token();
    let storm = |round: &str| -> Vec<Reply> {
        thread::scope(|s| {
            let requests: Vec<_> = (0..STORM)
                .map(|i| {
                    let (api, token) = (&api, &token);
                    s.spawn(move || {
                        let body = order_json(&format!("{round}-{i}"), "SKU-1", 1);
                        within_the_deadline("a create in the storm", || {
                            api.create(token, &format!("{round}-{i}"), &body)
                        })
                    })
                })
                .collect();
            requests.into_iter().map(|r| r.join().unwrap()).collect()
        })
    };

    proxy.silence();
    let silent = storm("silent");
    for reply in &silent {
        assert_eq!(reply.status_code(), (503, Some("outcome_unknown".into())));
    }
    assert_eq!(app.db.orders_with_ref_prefix(1, "silent-").await, 0);

    proxy.speak_again();
    // Every connection that met the silence was discarded: the next storm meets none.
    let after = storm("after");
    for reply in &after {
        assert_eq!(
            reply.status,
            201,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
    }
    // The silent storm's bytes the proxy held have landed by now (they went out at
    // `speak_again`, before the storm above): none of them committed an order.
    assert_eq!(app.db.orders_with_ref_prefix(1, "silent-").await, 0);
    assert_eq!(app.db.orders_with_ref_prefix(1, "after-").await, 32);
    app.assert_legal(
        &history,
        "a_storm_on_a_silent_database_is_all_503_within_the_deadline_and_the_pool_recovers",
    )
    .await;
    app.finish().await;
}
