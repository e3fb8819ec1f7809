//! A capture with a caller's `traceparent`: the acceptance, the worker's attempt and its
//! call to the provider are one trace, and the provider received that trace's context.

use tests::otlp::{OtlpReceiver, SpanKind};
use tests::{
    ALL_PERMISSIONS, Api, ProviderStandIn, Service, ServiceOptions, TestDb, capture_json, token,
};

use crate::support::{
    CALLER_SPAN_ID, PATIENCE, TRACE_ID, assert_one_tree, assert_parent, create_with, exporting_to,
    has_all, of_trace, the, traceparent,
};

/// A serving process that works captures against `provider`, `env` on top.
pub(crate) fn working_server(
    db: &TestDb,
    provider: &ProviderStandIn,
    env: Vec<(String, String)>,
) -> Service {
    let mut options = ServiceOptions::new(db.url());
    options.env = env;
    options.env.extend(
        [
            ("PAYMENT_PROVIDER_URL", provider.url()),
            ("WORKER_POLL_MS", "50"),
            ("WORKER_CONCURRENCY", "1"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned())),
    );
    let server = Service::start(&options);
    server.wait_for_log("workers started").unwrap();
    server
}

/// Accepts a capture of `order` under `key` with the caller's `traceparent`.
fn capture_in(api: &Api, order: &str, key: &str, traceparent: &str) -> tests::Reply {
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    api.send(
        "POST",
        &format!("/api/orders/{order}/payments"),
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", key.as_bytes()),
            ("content-type", b"application/json"),
            ("traceparent", traceparent.as_bytes()),
        ],
        capture_json(1500, "JPY").as_bytes(),
    )
}

/// Waits until the database holds `n` succeeded operations.
async fn succeeded(db: &TestDb, n: i64) {
    tests::wait_until(
        PATIENCE,
        "the captures succeeded",
        || async {
            db.count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await
        },
        |seen| *seen == n,
    )
    .await;
}

#[tokio::test]
async fn a_capture_is_one_trace_from_the_acceptance_to_the_provider() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let receiver = OtlpReceiver::start().unwrap();
    let server = working_server(&db, &provider, exporting_to(&receiver, "orders-api"));
    let api = Api::new(server.base_url());
    // The order comes from a request of its own trace; only the capture is the caller's.
    let created = create_with(&api, "order-1", &[]);
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let accepted = capture_in(&api, &order, "pay-1", &traceparent());
    assert_eq!(accepted.status, 202);

    let spans = receiver
        .wait_for(
            |spans| {
                has_all(
                    spans,
                    TRACE_ID,
                    &[
                        "POST /api/orders/{order_id}/payments",
                        "operation insert",
                        "operation attempt",
                        "provider charge",
                    ],
                )
            },
            PATIENCE,
        )
        .unwrap_or_else(|spans| panic!("no provider call in the trace: {spans:#?}"));
    let trace = of_trace(&spans, TRACE_ID);
    assert_one_tree(&trace, CALLER_SPAN_ID);

    let acceptance = the(&trace, "POST /api/orders/{order_id}/payments");
    assert_eq!(acceptance.kind, SpanKind::Server);
    assert_eq!(acceptance.attribute("idempotent.outcome"), Some("executed"));
    let operation_insert = the(&trace, "operation insert");
    let attempt = the(&trace, "operation attempt");
    assert_parent(attempt, operation_insert);
    let call = the(&trace, "provider charge");
    assert_eq!(call.kind, SpanKind::Client);
    assert_eq!(call.attribute("http.request.method"), Some("POST"));
    assert_parent(call, attempt);

    // The provider saw the call's span as its parent, in the caller's trace.
    let seen = provider.traceparents();
    assert_eq!(
        seen,
        vec![format!("00-{TRACE_ID}-{}-01", call.span_id)],
        "what the provider received"
    );

    drop(server);
    drop(provider);
    db.drop_database().await;
}

/// With tracing off (no collector configured), a caller's context is neither kept nor
/// passed on: no `trace_context` in the outbox, no `operation_traces` row, no
/// `traceparent` to the provider.
#[tokio::test]
async fn with_tracing_off_no_context_is_written_or_sent() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let server = working_server(&db, &provider, Vec::new());
    let api = Api::new(server.base_url());
    let traceparent = traceparent();
    let created = create_with(&api, "order-off", &[("traceparent", &traceparent)]);
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    assert_eq!(
        capture_in(&api, &order, "pay-off", &traceparent).status,
        202
    );
    succeeded(&db, 1).await;

    assert!(
        provider.counters().traceparents.is_empty(),
        "a context reached the provider"
    );
    assert_eq!(
        db.count("SELECT COUNT(*) AS n FROM outbox WHERE trace_context IS NOT NULL")
            .await,
        0
    );
    assert_eq!(
        db.count("SELECT COUNT(*) AS n FROM operation_traces").await,
        0
    );
    assert_eq!(
        db.count("SELECT COUNT(*) AS n FROM outbox").await,
        2,
        "the order's and the capture's events"
    );
    drop(server);
    db.drop_database().await;
}

/// A caller's trace it chose not to sample (flags `00`) is not recorded here, yet carried
/// on: the provider receives the caller's trace id, unsampled.
#[tokio::test]
async fn an_unsampled_trace_is_not_exported_but_still_propagates() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let receiver = OtlpReceiver::start().unwrap();
    let server = working_server(&db, &provider, exporting_to(&receiver, "orders-api"));
    let api = Api::new(server.base_url());
    let created = create_with(&api, "order-u", &[]);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let unsampled = format!("00-{TRACE_ID}-{CALLER_SPAN_ID}-00");
    assert_eq!(capture_in(&api, &order, "pay-u", &unsampled).status, 202);
    succeeded(&db, 1).await;

    let seen = provider.traceparents();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with(&format!("00-{TRACE_ID}-")) && seen[0].ends_with("-00"),
        "the caller's trace, unsampled: {seen:?}"
    );
    // The create's own trace is exported (so the exporter works); the caller's is not.
    let spans = receiver
        .wait_for(|spans| !spans.is_empty(), PATIENCE)
        .unwrap_or_else(|spans| panic!("nothing exported: {spans:#?}"));
    assert!(of_trace(&spans, TRACE_ID).is_empty(), "{spans:#?}");
    drop(server);
    db.drop_database().await;
}

/// The lease's trace crosses processes: a capture accepted by a `serve` process without a
/// provider is worked by a separate `server worker`, whose attempt and call continue the
/// caller's trace from the context stored at acceptance.
#[tokio::test]
async fn a_separate_worker_process_continues_the_acceptance_s_trace() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let receiver = OtlpReceiver::start().unwrap();
    let mut accepting = ServiceOptions::new(db.url());
    accepting.env = exporting_to(&receiver, "orders-api");
    let accepting = Service::start(&accepting);
    let api = Api::new(accepting.base_url());
    let created = create_with(&api, "order-w", &[]);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    assert_eq!(
        capture_in(&api, &order, "pay-w", &traceparent()).status,
        202
    );

    let mut working = ServiceOptions::new(db.url());
    working.env = exporting_to(&receiver, "orders-worker");
    working.env.extend(
        [
            ("PAYMENT_PROVIDER_URL", provider.url()),
            ("WORKER_POLL_MS", "50"),
            // One task: a second one losing the claim would show an attempt of its own.
            ("WORKER_CONCURRENCY", "1"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned())),
    );
    let worker = Service::start_command(&working, &["worker"], "workers started");
    succeeded(&db, 1).await;

    let spans = receiver
        .wait_for(
            |spans| {
                has_all(
                    spans,
                    TRACE_ID,
                    &["operation insert", "operation attempt", "provider charge"],
                )
            },
            PATIENCE,
        )
        .unwrap_or_else(|spans| panic!("the worker's spans left the trace: {spans:#?}"));
    let trace = of_trace(&spans, TRACE_ID);
    assert_one_tree(&trace, CALLER_SPAN_ID);
    assert_parent(
        the(&trace, "operation attempt"),
        the(&trace, "operation insert"),
    );
    let seen = provider.traceparents();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].starts_with(&format!("00-{TRACE_ID}-")), "{seen:?}");
    drop((worker, accepting));
    db.drop_database().await;
}
