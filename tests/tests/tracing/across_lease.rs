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

#[tokio::test]
async fn a_capture_is_one_trace_from_the_acceptance_to_the_provider() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let receiver = OtlpReceiver::start().unwrap();
    let mut options = ServiceOptions::new(db.url());
    options.env = exporting_to(&receiver, "orders-api");
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
    let api = Api::new(server.base_url());
    // The order comes from a request of its own trace; only the capture is the caller's.
    let created = create_with(&api, "order-1", &[]);
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    let path = format!("/api/orders/{order}/payments");
    let traceparent = traceparent();
    let accepted = api.send(
        "POST",
        &path,
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", b"pay-1"),
            ("content-type", b"application/json"),
            ("traceparent", traceparent.as_bytes()),
        ],
        capture_json(1500, "JPY").as_bytes(),
    );
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
    let mut options = ServiceOptions::new(db.url());
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
    let api = Api::new(server.base_url());
    let traceparent = traceparent();
    let created = create_with(&api, "order-off", &[("traceparent", &traceparent)]);
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    let accepted = api.send(
        "POST",
        &format!("/api/orders/{order}/payments"),
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", b"pay-off"),
            ("content-type", b"application/json"),
            ("traceparent", traceparent.as_bytes()),
        ],
        capture_json(1500, "JPY").as_bytes(),
    );
    assert_eq!(accepted.status, 202);
    tests::wait_until(
        PATIENCE,
        "the capture succeeded",
        || async {
            db.count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await
        },
        |n| *n == 1,
    )
    .await;

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
