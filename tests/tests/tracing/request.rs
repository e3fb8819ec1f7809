//! The request's own span: a caller's context honoured or, when missing or malformed,
//! a trace of its own; replays and refusals as spans with their outcome; log lines
//! carrying the ids of the span they were written in.

use tests::otlp::{CollectedSpan, OtlpReceiver, SpanKind};
use tests::{Api, Service, ServiceOptions, TestDb};

use crate::support::{CALLER_SPAN_ID, PATIENCE, TRACE_ID, create_with, exporting_to, traceparent};

fn server(db: &TestDb, receiver: &OtlpReceiver, env: &[(&str, &str)]) -> Service {
    let mut options = ServiceOptions::new(db.url());
    options.env = exporting_to(receiver, "orders-api");
    options
        .env
        .extend(env.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())));
    Service::start(&options)
}

fn request_spans(spans: &[CollectedSpan]) -> Vec<&CollectedSpan> {
    spans
        .iter()
        .filter(|s| s.kind == SpanKind::Server)
        .collect()
}

#[tokio::test]
async fn a_malformed_or_missing_traceparent_starts_a_trace_of_its_own() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let server = server(&db, &receiver, &[]);
    let api = Api::new(server.base_url());
    let malformed = [
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "zz-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "not a trace context at all",
    ];
    for (n, value) in malformed.iter().enumerate() {
        let reply = create_with(&api, &format!("bad-{n}"), &[("traceparent", value)]);
        assert_eq!(reply.status, 201, "{value}");
    }
    assert_eq!(create_with(&api, "none", &[]).status, 201);

    let spans = receiver
        .wait_for(
            |spans| request_spans(spans).len() == malformed.len() + 1,
            PATIENCE,
        )
        .unwrap_or_else(|spans| panic!("not every request's span arrived: {spans:#?}"));
    let requests = request_spans(&spans);
    for span in &requests {
        assert_eq!(span.parent_span_id, None, "a root: {span:#?}");
        assert_ne!(span.trace_id, TRACE_ID);
        assert_eq!(span.trace_id.len(), 32);
    }
    let mut traces: Vec<_> = requests.iter().map(|s| &s.trace_id).collect();
    traces.sort();
    traces.dedup();
    assert_eq!(traces.len(), requests.len(), "each a trace of its own");

    drop(server);
    db.drop_database().await;
}

#[tokio::test]
async fn replays_and_refusals_are_spans_with_their_outcome_and_tracestate_is_kept() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let server = server(&db, &receiver, &[]);
    let api = Api::new(server.base_url());
    let context = [
        ("traceparent", traceparent()),
        ("tracestate", "vendor=opaque-1".to_owned()),
    ];
    let context: Vec<(&str, &str)> = context.iter().map(|(n, v)| (*n, v.as_str())).collect();

    assert_eq!(create_with(&api, "k-1", &context).status, 201);
    assert_eq!(create_with(&api, "k-1", &context).status, 201);
    assert_eq!(create_with(&api, "not a key!", &context).status, 400);

    let spans = receiver
        .wait_for(|spans| request_spans(spans).len() == 3, PATIENCE)
        .unwrap_or_else(|spans| panic!("not every request's span arrived: {spans:#?}"));
    let mut outcomes: Vec<_> = request_spans(&spans)
        .iter()
        .map(|s| {
            assert_eq!(s.trace_id, TRACE_ID);
            assert_eq!(s.parent_span_id.as_deref(), Some(CALLER_SPAN_ID));
            assert_eq!(s.trace_state, "vendor=opaque-1", "{s:#?}");
            s.attribute("idempotent.outcome")
                .unwrap_or("none")
                .to_owned()
        })
        .collect();
    outcomes.sort();
    assert_eq!(outcomes, ["executed", "refused", "replayed"]);

    drop(server);
    db.drop_database().await;
}

#[tokio::test]
async fn json_log_lines_carry_the_trace_and_span_ids() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let server = server(&db, &receiver, &[("LOG_FORMAT", "json")]);
    let api = Api::new(server.base_url());

    let reply = create_with(&api, "logged", &[("traceparent", &traceparent())]);
    assert_eq!(reply.status, 201);
    let request_id = reply.header("x-request-id").unwrap();
    server.wait_for_log(&request_id).unwrap();

    let spans = receiver
        .wait_for(|spans| !request_spans(spans).is_empty(), PATIENCE)
        .unwrap_or_else(|spans| panic!("no request span: {spans:#?}"));
    let request = request_spans(&spans)[0].clone();
    let line = server
        .log()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|line| line["span"]["request_id"] == request_id.as_str())
        .unwrap_or_else(|| panic!("no line of the request:\n{}", server.log()));
    assert_eq!(line["trace_id"], TRACE_ID, "{line}");
    assert_eq!(line["span_id"], request.span_id.as_str(), "{line}");

    drop(server);
    db.drop_database().await;
}

#[tokio::test]
async fn a_tracestate_over_the_w3c_bounds_is_dropped_and_the_trace_kept() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let server = server(&db, &receiver, &[]);
    let api = Api::new(server.base_url());
    // About 7.8 KB in 40 members: over both bounds.
    let huge: Vec<String> = (0..40)
        .map(|i| format!("v{i}={}", "x".repeat(190)))
        .collect();
    let context = [
        ("traceparent", traceparent()),
        ("tracestate", huge.join(",")),
    ];
    let context: Vec<(&str, &str)> = context.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(create_with(&api, "k-huge", &context).status, 201);
    assert_eq!(create_with(&api, "not a key!", &context).status, 400);

    let spans = receiver
        .wait_for(|spans| request_spans(spans).len() == 2, PATIENCE)
        .unwrap_or_else(|spans| panic!("not every request's span arrived: {spans:#?}"));
    for span in &spans {
        assert!(span.trace_state.is_empty(), "{span:#?}");
    }
    for span in request_spans(&spans) {
        assert_eq!(
            (span.trace_id.as_str(), span.parent_span_id.as_deref()),
            (TRACE_ID, Some(CALLER_SPAN_ID)),
            "the caller's trace goes on without its state"
        );
    }
    drop(server);
    db.drop_database().await;
}

/// Spans still queued when the process is told to stop are sent before it exits: the
/// export batch waits a minute here, so only the shutdown's flush can send them.
#[tokio::test]
async fn spans_queued_at_shutdown_are_flushed() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let mut server = server(&db, &receiver, &[("OTEL_BSP_SCHEDULE_DELAY", "60000")]);
    let api = Api::new(server.base_url());
    let context = [("traceparent", traceparent())];
    let context: Vec<(&str, &str)> = context.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(create_with(&api, "flushed", &context).status, 201);
    assert!(
        receiver.spans().is_empty(),
        "nothing sent before the batch's minute"
    );

    server.terminate();
    assert!(server.wait().success());
    let spans = receiver
        .wait_for(|spans| !request_spans(spans).is_empty(), PATIENCE)
        .unwrap_or_else(|spans| panic!("the queued spans were lost at shutdown: {spans:#?}"));
    assert_eq!(request_spans(&spans)[0].trace_id, TRACE_ID);
    db.drop_database().await;
}
