//! What every tracing test shares: a caller's trace context, the environment that turns
//! export on, and checks over the collected spans.

use std::time::Duration;

use tests::otlp::{CollectedSpan, OtlpReceiver};
use tests::{ALL_PERMISSIONS, Api, Reply, order_json, token};

/// The caller's trace and span, as a client that speaks W3C Trace Context sends them.
pub(crate) const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
pub(crate) const CALLER_SPAN_ID: &str = "00f067aa0ba902b7";

/// How long the spans of a few requests may take to arrive (the batch goes every 100 ms).
pub(crate) const PATIENCE: Duration = Duration::from_secs(60);

pub(crate) fn traceparent() -> String {
    format!("00-{TRACE_ID}-{CALLER_SPAN_ID}-01")
}

/// Export to `receiver` as `service`, in batches sent every 100 ms.
pub(crate) fn exporting_to(receiver: &OtlpReceiver, service: &str) -> Vec<(String, String)> {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_SERVICE_NAME", service.to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect()
}

/// `POST /api/orders` with `extra` headers (a `traceparent`, say).
pub(crate) fn create_with(api: &Api, key: &str, extra: &[(&str, &str)]) -> Reply {
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    let mut headers: Vec<(&str, &[u8])> = vec![
        ("authorization", bearer.as_bytes()),
        ("idempotency-key", key.as_bytes()),
        ("content-type", b"application/json"),
    ];
    headers.extend(extra.iter().map(|(name, value)| (*name, value.as_bytes())));
    api.send(
        "POST",
        "/api/orders",
        &headers,
        order_json(key, "SKU-1", 1).as_bytes(),
    )
}

/// The spans of `trace_id`.
pub(crate) fn of_trace<'a>(spans: &'a [CollectedSpan], trace_id: &str) -> Vec<&'a CollectedSpan> {
    spans.iter().filter(|s| s.trace_id == trace_id).collect()
}

/// The one span called `name` in `spans`.
pub(crate) fn the<'a>(spans: &[&'a CollectedSpan], name: &str) -> &'a CollectedSpan {
    let found: Vec<_> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one span {name:?} expected: {spans:#?}");
    found[0]
}

/// Whether a span of each name in `names` arrived in the trace: each process sends its
/// spans in batches of its own, in no order across processes.
pub(crate) fn has_all(spans: &[CollectedSpan], trace_id: &str, names: &[&str]) -> bool {
    names.iter().all(|name| {
        spans
            .iter()
            .any(|s| s.trace_id == trace_id && s.name == *name)
    })
}

pub(crate) fn assert_parent(child: &CollectedSpan, parent: &CollectedSpan) {
    assert_eq!(
        child.parent_span_id.as_deref(),
        Some(parent.span_id.as_str()),
        "{:?} should be a child of {:?}:\n{child:#?}\n{parent:#?}",
        child.name,
        parent.name
    );
}

/// Every span of the trace has its parent among them, but the one whose parent is the
/// caller's span: one tree, no span cut off.
pub(crate) fn assert_one_tree(trace: &[&CollectedSpan], caller_span_id: &str) {
    for span in trace {
        let parent = span.parent_span_id.as_deref();
        assert!(
            parent == Some(caller_span_id)
                || trace.iter().any(|p| Some(p.span_id.as_str()) == parent),
            "{:?} has a parent outside the trace: {span:#?}\nthe trace: {trace:#?}",
            span.name
        );
    }
}
