//! A create with a caller's `traceparent`: the request, its statements, the relay's
//! publish and the consumer's handling are one trace, each span under the right parent.

use tests::otlp::{OtlpReceiver, SpanKind};
use tests::{Api, PrivateNats, Service, ServiceOptions, TestDb};

use crate::support::{
    CALLER_SPAN_ID, PATIENCE, TRACE_ID, assert_one_tree, assert_parent, create_with, exporting_to,
    has_all, of_trace, the, traceparent,
};

fn options(db: &TestDb, nats: &PrivateNats, otel: Vec<(String, String)>) -> ServiceOptions {
    let mut options = ServiceOptions::new(db.url());
    options.env = otel;
    options.env.extend([
        ("NATS_URL".to_owned(), nats.url()),
        ("OUTBOX_POLL_MS".to_owned(), "20".to_owned()),
    ]);
    options
}

/// Every span the test looks at, from the server and the consumer.
const EXPECTED: &[&str] = &[
    "POST /api/orders",
    "edge checks",
    "transaction",
    "record insert",
    "order insert",
    "outbox insert",
    "record completion",
    "commit",
    "publish",
    "process shipments",
    "inbox transaction",
    "inbox insert",
];

#[tokio::test]
async fn a_create_is_one_trace_from_the_request_to_the_consumer() {
    let db = TestDb::create().await;
    let nats = PrivateNats::start();
    let receiver = OtlpReceiver::start().unwrap();
    let server = Service::start(&options(&db, &nats, exporting_to(&receiver, "orders-api")));
    server.wait_for_log("relay started").unwrap();
    let consumer = Service::start_command(
        &options(&db, &nats, exporting_to(&receiver, "shipments")),
        &["consume", "shipments"],
        "consumer started",
    );
    let api = Api::new(server.base_url());

    let reply = create_with(&api, "trace-1", &[("traceparent", &traceparent())]);
    assert_eq!(reply.status, 201);

    let spans = receiver
        .wait_for(|spans| has_all(spans, TRACE_ID, EXPECTED), PATIENCE)
        .unwrap_or_else(|spans| panic!("the trace never reached the consumer: {spans:#?}"));
    let trace = of_trace(&spans, TRACE_ID);
    assert_one_tree(&trace, CALLER_SPAN_ID);

    let request = the(&trace, "POST /api/orders");
    assert_eq!(request.kind, SpanKind::Server);
    assert_eq!(request.service_name, "orders-api");
    assert_eq!(request.parent_span_id.as_deref(), Some(CALLER_SPAN_ID));
    assert_eq!(request.attribute("idempotent.outcome"), Some("executed"));
    assert_eq!(request.attribute("http.response.status_code"), Some("201"));
    assert_eq!(request.attribute("http.route"), Some("/api/orders"));
    // Nothing is read before the transaction: the request's steps are these two.
    let mut children: Vec<_> = trace
        .iter()
        .filter(|s| s.parent_span_id.as_deref() == Some(request.span_id.as_str()))
        .map(|s| s.name.as_str())
        .collect();
    children.sort_unstable();
    assert_eq!(children, ["edge checks", "transaction"], "{trace:#?}");
    let transaction = the(&trace, "transaction");
    assert_eq!(transaction.attribute("attempt"), Some("1"));
    let commit = trace
        .iter()
        .find(|s| s.name == "commit" && s.kind == SpanKind::Internal)
        .unwrap();
    assert_parent(commit, transaction);

    // Each statement is a client span with the database conventions, under its step.
    let statements: Vec<_> = trace
        .iter()
        .filter(|s| s.kind == SpanKind::Client && s.service_name == "orders-api")
        .collect();
    for name in [
        "record insert",
        "order insert",
        "outbox insert",
        "record completion",
    ] {
        let statement = statements.iter().find(|s| s.name == name).unwrap();
        assert_parent(statement, transaction);
        assert_eq!(statement.attribute("db.system.name"), Some("mariadb"));
        assert_eq!(statement.attribute("db.query.summary"), Some(name));
        let text = statement.attribute("db.query.text").unwrap();
        assert!(text.contains('?') && !text.contains("trace-1"), "{text}");
    }
    // The relay publishes in the trace of the statement that wrote the event; the
    // consumer continues the publish's trace through the message's header.
    let outbox_insert = statements
        .iter()
        .find(|s| s.name == "outbox insert")
        .unwrap();
    let publish = the(&trace, "publish");
    assert_eq!(publish.kind, SpanKind::Producer);
    assert_parent(publish, outbox_insert);
    assert_eq!(publish.attribute("messaging.system"), Some("nats"));
    let handling = the(&trace, "process shipments");
    assert_eq!(handling.kind, SpanKind::Consumer);
    assert_eq!(handling.service_name, "shipments");
    assert_parent(handling, publish);
    let inbox = the(&trace, "inbox transaction");
    assert_parent(inbox, handling);
    let inbox_statement = trace
        .iter()
        .find(|s| s.name == "inbox insert")
        .unwrap_or_else(|| panic!("no inbox statement: {trace:#?}"));
    assert_parent(inbox_statement, inbox);

    drop(consumer);
    drop(server);
    db.drop_database().await;
}
