//! The outcome table (`docs/http-api.md#outcomes-of-an-idempotent-post`): 201,
//! byte-identical replays, 422, both 409s, 500 and 503, each with the stored state it must
//! leave behind.

use std::thread;

use tests::{CommitFault, FaultProxy, PauseDir, Service, ServiceOptions, order_json, url_via};

use crate::support::{App, full_token, retry_while_unavailable};

#[tokio::test]
async fn a_first_request_creates_one_order_and_answers_201_with_its_location() {
    let app = App::start().await;
    let reply = app
        .api
        .create(&full_token(), "first-1", &order_json("REF-1", "SKU-1", 2));

    assert_eq!(
        reply.status,
        201,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(reply.header("idempotent-replayed"), None);
    let body = reply.json();
    let id = body["orderId"].as_str().unwrap();
    assert!(id.parse::<u64>().unwrap() > 0);
    assert_eq!(reply.header("location"), Some(format!("/api/orders/{id}")));
    assert_eq!(
        (&body["clientOrderRef"], &body["sku"], &body["quantity"]),
        (&"REF-1".into(), &"SKU-1".into(), &2.into())
    );
    let created_at = body["createdAt"].as_str().unwrap();
    assert!(
        created_at.ends_with('Z') && created_at.len() == "2026-01-01T00:00:00.000000Z".len(),
        "RFC 3339 UTC with microseconds: {created_at}"
    );
    assert_eq!(
        (&body["status"], &body["cancelledAt"]),
        (&"active".into(), &serde_json::Value::Null)
    );
    assert_eq!(
        body.as_object().unwrap().len(),
        7,
        "exactly the documented members"
    );
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    app.finish().await;
}

#[tokio::test]
async fn a_retry_gets_the_stored_bytes_back_marked_as_a_replay() {
    let app = App::start().await;
    let (history, api) = app.recording();
    let first = api.create(&full_token(), "retry-1", &order_json("REF-1", "SKU-1", 2));
    // The same request, written differently: member order and whitespace do not matter.
    let same = r#" { "quantity" : 2, "sku":"SKU-1",  "clientOrderRef":"REF-1" } "#;
    for _ in 0..3 {
        let replay = api.create(&full_token(), "retry-1", same);
        assert_eq!(replay.status, first.status);
        assert_eq!(replay.body, first.body, "byte-identical body");
        for header in ["content-type", "location"] {
            assert_eq!(replay.header(header), first.header(header), "{header}");
        }
        assert_eq!(
            replay.header("idempotent-replayed").as_deref(),
            Some("true")
        );
    }
    assert_eq!(app.db.total_orders().await, 1);
    app.assert_legal(
        &history,
        "a_retry_gets_the_stored_bytes_back_marked_as_a_replay",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn the_same_key_with_another_body_is_422_and_creates_nothing_more() {
    let app = App::start().await;
    let (history, api) = app.recording();
    let token = full_token();
    let first = api.create(&token, "reuse-1", &order_json("REF-1", "SKU-1", 2));
    assert_eq!(first.status, 201);
    for other in [
        order_json("REF-1", "SKU-1", 3),
        order_json("ref-1", "SKU-1", 2),
        order_json("REF-1", "SKU-2", 2),
    ] {
        let reply = api.create(&token, "reuse-1", &other);
        assert_eq!(
            reply.status_code(),
            (422, Some("idempotency_key_reused".into())),
            "{other}"
        );
        assert_eq!(
            reply.header("content-type").as_deref(),
            Some("application/problem+json")
        );
    }
    assert_eq!(app.db.total_orders().await, 1);
    app.assert_legal(
        &history,
        "the_same_key_with_another_body_is_422_and_creates_nothing_more",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn a_new_key_with_a_used_client_order_ref_is_409_and_reveals_nothing() {
    let app = App::start().await;
    let (history, api) = app.recording();
    let token = full_token();
    let first = api.create(&token, "ref-a", &order_json("REF-1", "SKU-1", 2));
    let first_id = first.json()["orderId"].as_str().unwrap().to_owned();

    let reply = api.create(&token, "ref-b", &order_json("REF-1", "SKU-9", 7));
    assert_eq!(
        reply.status_code(),
        (409, Some("client_order_ref_conflict".into()))
    );
    let text = String::from_utf8_lossy(&reply.body);
    assert!(
        !text.contains(&first_id) && !text.contains("SKU-1"),
        "{text}"
    );
    assert_eq!(app.db.total_orders().await, 1);
    // The refused key stored nothing: it can be used for another order.
    let later = api.create(&token, "ref-b", &order_json("REF-2", "SKU-9", 7));
    assert_eq!(later.status, 201);
    app.assert_legal(
        &history,
        "a_new_key_with_a_used_client_order_ref_is_409_and_reveals_nothing",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn a_key_held_past_the_lock_wait_is_409_in_progress_then_the_retry_replays() {
    let pause = PauseDir::new();
    let app = App::start_with(|o| {
        o.lock_wait_secs = 1;
        o.pause_dir = Some(pause.path().to_owned());
    })
    .await;
    let (history, api) = app.recording();
    // The follower goes through another process: it meets the key in the database, waits
    // on the leader's row lock for the lock wait, and hears the database's 1205 as 409.
    // (Within one process a follower waits in memory instead: `http/in_memory.rs`.)
    let mut other = ServiceOptions::new(app.db.url());
    other.lock_wait_secs = 1;
    let other = Service::start(&other);
    let other_api = tests::Api::new(other.base_url()).recording(&history);
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    thread::scope(|s| {
        let leader = s.spawn(|| api.create(&token, "pause-held", &body));
        pause.wait_until_paused("pause-held");

        let follower = other_api.create(&token, "pause-held", &body);
        assert_eq!(
            follower.status_code(),
            (409, Some("request_in_progress".into()))
        );
        assert_eq!(follower.header("retry-after").as_deref(), Some("1"));

        pause.release("pause-held");
        assert_eq!(leader.join().unwrap().status, 201);
    });
    assert_eq!(
        other_api.metric("idempotent_same_key_waits_total"),
        0.0,
        "the wait was the database's"
    );
    let retry = other_api.create(&token, "pause-held", &body);
    assert_eq!(retry.status, 201);
    assert_eq!(retry.header("idempotent-replayed").as_deref(), Some("true"));
    assert_eq!(app.db.total_orders().await, 1);
    drop(other);
    app.assert_legal(
        &history,
        "a_key_held_past_the_lock_wait_is_409_in_progress_then_the_retry_replays",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn a_failure_inside_the_transaction_is_500_and_leaves_nothing_behind() {
    let pause = PauseDir::new();
    let app = App::start_with(|o| o.pause_dir = Some(pause.path().to_owned())).await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    thread::scope(|s| {
        let request = s.spawn(|| api.create(&token, "pause-fail", &body));
        pause.wait_until_paused("pause-fail");
        pause.abort("pause-fail");
        assert_eq!(
            request.join().unwrap().status_code(),
            (500, Some("internal".into()))
        );
    });
    app.assert_nothing_stored("after a rollback").await;

    // Nothing was stored, so the retry with the same key executes.
    thread::scope(|s| {
        let retry = s.spawn(|| api.create(&token, "pause-fail", &body));
        pause.wait_until_paused("pause-fail");
        pause.release("pause-fail");
        let retry = retry.join().unwrap();
        assert_eq!(retry.status, 201);
        assert_eq!(retry.header("idempotent-replayed"), None);
    });
    assert_eq!(app.db.total_orders().await, 1);
    app.assert_legal(
        &history,
        "a_failure_inside_the_transaction_is_500_and_leaves_nothing_behind",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn an_unreachable_database_is_503_outcome_unknown_and_the_retry_executes_once() {
    let db_url = tests::TestServer::from_env().socket_addr();
    let proxy = FaultProxy::start(db_url);
    let app = App::start_with(|o| o.database_url = url_via(&o.database_url, proxy.address())).await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);

    proxy.cut();
    let reply = api.create(&token, "down-1", &body);
    assert_eq!(reply.status_code(), (503, Some("outcome_unknown".into())));
    assert_eq!(reply.header("retry-after").as_deref(), Some("1"));
    assert_eq!(app.api.get("/readyz", None).status, 503);

    proxy.restore();
    let retry = retry_while_unavailable(|| api.create(&token, "down-1", &body));
    assert_eq!(retry.status, 201);
    assert_eq!(app.api.get("/readyz", None).status, 200);
    assert_eq!(app.db.total_orders().await, 1);
    app.assert_legal(
        &history,
        "an_unreachable_database_is_503_outcome_unknown_and_the_retry_executes_once",
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn a_connection_lost_inside_the_transaction_is_503_and_the_retry_executes_exactly_once() {
    let pause = PauseDir::new();
    let proxy = FaultProxy::start(tests::TestServer::from_env().socket_addr());
    let app = App::start_with(|o| {
        o.database_url = url_via(&o.database_url, proxy.address());
        o.pause_dir = Some(pause.path().to_owned());
    })
    .await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);
    thread::scope(|s| {
        let request = s.spawn(|| api.create(&token, "pause-lost", &body));
        pause.wait_until_paused("pause-lost");
        proxy.cut();
        pause.release("pause-lost");
        assert_eq!(
            request.join().unwrap().status_code(),
            (503, Some("outcome_unknown".into()))
        );
    });
    proxy.restore();
    // The server rolled the cut transaction back, so the retry runs it, once.
    thread::scope(|s| {
        let retry = s.spawn(|| retry_while_unavailable(|| api.create(&token, "pause-lost", &body)));
        pause.wait_until_paused("pause-lost");
        pause.release("pause-lost");
        assert_eq!(retry.join().unwrap().status, 201);
    });
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    app.assert_legal(
        &history,
        "a_connection_lost_inside_the_transaction_is_503_and_the_retry_executes_exactly_once",
    )
    .await;
    app.finish().await;
}

/// Fails the create's `COMMIT` as `fault` says, then retries with the same key once the
/// connection is gone; returns the first answer and the retry's.
async fn create_through_a_failing_commit(fault: CommitFault) -> (tests::Reply, tests::Reply) {
    let proxy = FaultProxy::start(tests::TestServer::from_env().socket_addr());
    let app = App::start_with(|o| o.database_url = url_via(&o.database_url, proxy.address())).await;
    let (history, api) = app.recording();
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 2);

    proxy.fail_next_commit(fault);
    let first = api.create(&token, "commit-1", &body);
    assert_eq!(proxy.commit_faults_fired(), 1, "the fault hit the COMMIT");
    let retry = retry_while_unavailable(|| api.create(&token, "commit-1", &body));

    assert_eq!(first.status_code(), (503, Some("outcome_unknown".into())));
    assert_eq!(first.header("retry-after").as_deref(), Some("1"));
    assert_eq!(retry.status, 201);
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1, "one order");
    assert_eq!(app.db.total_records().await, 1, "one record");
    app.assert_legal(&history, &format!("commit-{fault:?}"))
        .await;
    app.finish().await;
    (first, retry)
}

#[tokio::test]
async fn a_commit_that_never_reaches_the_server_is_503_and_the_retry_executes_once() {
    let (_, retry) = create_through_a_failing_commit(CommitFault::NeverArrives).await;

    assert_eq!(
        retry.header("idempotent-replayed"),
        None,
        "nothing had committed: the retry executed"
    );
}

#[tokio::test]
async fn a_commit_whose_answer_is_lost_is_503_and_the_retry_replays_the_committed_order() {
    let (_, retry) = create_through_a_failing_commit(CommitFault::AnswerLost).await;

    assert_eq!(
        retry.header("idempotent-replayed").as_deref(),
        Some("true"),
        "the commit had landed: the retry replays it"
    );
}
