//! What the worker records of the provider's answers
//! (`docs/long-running-operations.md#the-payment-provider`), with a real server working
//! captures against the provider stand-in told to misbehave, on both stores: an answer
//! of the wrong form is malformed, counted, and ends `needs_review` without a payment; an
//! end the store refuses twice the same way ends `needs_review` too. Refunds are read the
//! same way. Neither holds its
//! order, and a well-formed capture beside them still succeeds.

use std::time::Duration;

use tests::{
    ALL_PERMISSIONS, Api, Backend, Controls, ProviderStandIn, Service, ServiceOptions, SqliteDb,
    TestDb, cancel_json, capture_json, order_json, refund_json, token, wait_until,
};

/// How long a worker may take to end an operation on two busy cores.
const PATIENCE: Duration = Duration::from_secs(60);

/// Attempts before `needs_review`: two, so the count shows each one was counted.
const MAX_ATTEMPTS: i64 = 2;

/// A server that works captures against `provider`, one task, quickly retried.
fn serve<B: Backend>(db: &B, provider: &ProviderStandIn) -> Service {
    let mut options = ServiceOptions::new(&db.server_url());
    for (name, value) in [
        ("PAYMENT_PROVIDER_URL", provider.url()),
        ("OPERATION_MAX_ATTEMPTS", &MAX_ATTEMPTS.to_string()),
        ("OPERATION_BACKOFF_MS", "1"),
        ("WORKER_POLL_MS", "20"),
        ("WORKER_CONCURRENCY", "1"),
    ] {
        options.env.push((name.into(), value.into()));
    }
    let service = Service::start(&options);
    if let Err(log) = service.wait_for_log("workers started") {
        panic!("the server started no capture worker:\n{log}");
    }
    service
}

/// Answers the stand-in gives while misbehaving, each a way a definite answer could not
/// be recorded as it is.
fn misanswers() -> Vec<(&'static str, Controls)> {
    let id = |id: &str| Controls {
        answer_id: Some(id.to_owned()),
        ..Controls::default()
    };
    vec![
        ("an id over 128 characters", id(&"c".repeat(129))),
        ("an id with a NUL", id("ch_\0")),
        ("an id with markup", id("<b>ch_1</b>")),
        (
            "another amount",
            Controls {
                answer_amount: Some(1),
                ..Controls::default()
            },
        ),
        (
            "another currency",
            Controls {
                answer_currency: Some("USD".to_owned()),
                ..Controls::default()
            },
        ),
    ]
}

/// An order of tenant 1 and its capture of 1 500 JPY; the order's id.
fn captured_order(api: &Api, bearer: &str, reference: &str) -> String {
    let created = api.create(bearer, reference, &order_json(reference, "SKU-1", 1));
    assert_eq!(created.status, 201, "{reference}: the order");
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let key = format!("pay-{reference}");
    let accepted = api.capture(bearer, &order, &key, &capture_json(1500, "JPY"));
    assert_eq!(accepted.status, 202, "{reference}: the capture");
    order
}

/// Waits until the order's capture has left `PENDING`; its state, attempts and last error.
async fn ended<B: Backend>(db: &B, order: &str) -> (String, i64, String) {
    let ended_as = |state: &str, attempts: i64, last_error: &str| {
        format!(
            "operations WHERE order_id = {order} AND state = '{state}' AND attempts = {attempts} \
             AND COALESCE(last_error, '') = '{last_error}'"
        )
    };
    let left_pending = format!("operations WHERE order_id = {order} AND state <> 'PENDING'");
    wait_until(
        PATIENCE,
        &format!("the capture of order {order} ended"),
        || db.count_rows(&left_pending),
        |n| *n == 1,
    )
    .await;
    for (state, attempts, last_error) in [
        ("NEEDS_REVIEW", MAX_ATTEMPTS, "malformed"),
        ("NEEDS_REVIEW", 1, "completion_failed"),
        ("SUCCEEDED", 0, ""),
    ] {
        if db.count_rows(&ended_as(state, attempts, last_error)).await == 1 {
            return (state.to_owned(), attempts, last_error.to_owned());
        }
    }
    panic!("the capture of order {order} ended in none of the expected ways");
}

/// The order is not held by its ended capture: it can be cancelled.
fn assert_cancellable(api: &Api, bearer: &str, order: &str) {
    let cancelled = api.cancel(
        bearer,
        order,
        &format!("cancel-{order}"),
        &cancel_json("provider trouble"),
    );
    assert_eq!(cancelled.status, 200, "order {order} cancels");
}

async fn a_malformed_provider_answer_ends_needs_review_counted_and_never_called_again<
    B: Backend,
>() {
    let db = B::create().await;
    let provider = ProviderStandIn::start();
    let service = serve(&db, &provider);
    let api = Api::new(service.base_url());
    let bearer = token(1, 1, ALL_PERMISSIONS);

    let mut calls = 0;
    for (case, controls) in misanswers() {
        provider.control(&controls);
        let order = captured_order(&api, &bearer, &format!("REF-{calls}"));
        assert_eq!(
            ended(&db, &order).await,
            (
                "NEEDS_REVIEW".to_owned(),
                MAX_ATTEMPTS,
                "malformed".to_owned()
            ),
            "{case}"
        );
        calls += MAX_ATTEMPTS;
        assert_eq!(
            i64::try_from(provider.counters().charge_calls).unwrap(),
            calls,
            "{case}: one call per attempt"
        );
        let payments = format!("payments WHERE order_id = {order}");
        assert_eq!(db.count_rows(&payments).await, 0, "{case}: no payment");
        assert_cancellable(&api, &bearer, &order);
    }

    // A well-formed answer beside them is recorded; by then the worker has polled past
    // every operation above, none of which it called again.
    provider.control(&Controls::default());
    let order = captured_order(&api, &bearer, "REF-GOOD");
    assert_eq!(ended(&db, &order).await.0, "SUCCEEDED");
    assert_eq!(
        i64::try_from(provider.counters().charge_calls).unwrap(),
        calls + 1,
        "an operation in review is never called again"
    );
    assert_refunds_misanswered_end_in_review(&db, &provider, &api, &bearer, &order).await;
    let log = service.log();
    assert!(
        !log.contains("<b>") && !log.contains("ccccccccccccccccccc"),
        "the log holds nothing of the answers"
    );
    drop(service);
    db.finish().await;
}

/// Refunds of the captured `order` are read as captures are: a refund answered with markup
/// for an id, or with another amount, ends `needs_review` after its attempts, no refund row.
async fn assert_refunds_misanswered_end_in_review<B: Backend>(
    db: &B,
    provider: &ProviderStandIn,
    api: &Api,
    bearer: &str,
    order: &str,
) {
    let misanswers = [
        Controls {
            answer_id: Some("<b>re_1</b>".to_owned()),
            ..Controls::default()
        },
        Controls {
            answer_amount: Some(1),
            ..Controls::default()
        },
    ];
    for (n, controls) in misanswers.iter().enumerate() {
        provider.control(controls);
        let calls = provider.counters().refund_calls;
        let accepted = api.refund(
            bearer,
            order,
            &format!("refund-{n}"),
            &refund_json(100, "broken"),
        );
        assert_eq!(accepted.status, 202, "refund {n}: accepted");
        let location = accepted.header("location").unwrap();
        let status = wait_until(
            PATIENCE,
            &format!("refund {n} ended"),
            || std::future::ready(api.get(&location, Some(bearer)).json()),
            |status| status["state"] != "pending",
        )
        .await;
        assert_eq!(status["state"], "needs_review", "refund {n}: {status}");
        assert!(status["refund"].is_null(), "refund {n}: {status}");
        assert_eq!(
            provider.counters().refund_calls - calls,
            u64::try_from(MAX_ATTEMPTS).unwrap(),
            "refund {n}: one call per attempt"
        );
    }
    let refunds = format!("refunds WHERE order_id = {order}");
    assert_eq!(db.count_rows(&refunds).await, 0, "no refund recorded");
}

async fn an_end_refused_twice_the_same_way_ends_needs_review_and_frees_the_order<B: Backend>() {
    let db = B::create().await;
    let provider = ProviderStandIn::start();
    let service = serve(&db, &provider);
    let api = Api::new(service.base_url());
    let bearer = token(1, 1, ALL_PERMISSIONS);

    // The store refuses every payment the same way while its table is away.
    db.run_sql("ALTER TABLE payments RENAME TO payments_away")
        .await;
    let order = captured_order(&api, &bearer, "REF-1");
    let ending = ended(&db, &order).await;
    db.run_sql("ALTER TABLE payments_away RENAME TO payments")
        .await;
    assert_eq!(
        ending,
        ("NEEDS_REVIEW".to_owned(), 1, "completion_failed".to_owned()),
        "ended for a person, the attempt counted"
    );
    assert_eq!(
        provider.counters().charge_calls,
        1,
        "the provider called once"
    );
    assert_eq!(
        db.count_rows(&format!("payments WHERE order_id = {order}"))
            .await,
        0
    );
    assert_cancellable(&api, &bearer, &order);
    if let Err(log) = service.wait_for_log("refused to record the provider's answer") {
        panic!("the refusal was not logged for a person:\n{log}");
    }

    // With the store writing again, the next capture is recorded.
    let next = captured_order(&api, &bearer, "REF-2");
    assert_eq!(ended(&db, &next).await.0, "SUCCEEDED");
    drop(service);
    db.finish().await;
}

#[tokio::test]
async fn mysql_a_malformed_provider_answer_ends_needs_review_counted_and_never_called_again() {
    a_malformed_provider_answer_ends_needs_review_counted_and_never_called_again::<TestDb>().await;
}

#[tokio::test]
async fn sqlite_a_malformed_provider_answer_ends_needs_review_counted_and_never_called_again() {
    a_malformed_provider_answer_ends_needs_review_counted_and_never_called_again::<SqliteDb>()
        .await;
}

#[tokio::test]
async fn mysql_an_end_refused_twice_the_same_way_ends_needs_review_and_frees_the_order() {
    an_end_refused_twice_the_same_way_ends_needs_review_and_frees_the_order::<TestDb>().await;
}

#[tokio::test]
async fn sqlite_an_end_refused_twice_the_same_way_ends_needs_review_and_frees_the_order() {
    an_end_refused_twice_the_same_way_ends_needs_review_and_frees_the_order::<SqliteDb>().await;
}
