//! An export request flattened to [`CollectedSpan`]s: ids in hex, attribute values as
//! text, so a test compares plain strings.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};

use super::{CollectedSpan, SpanKind};

/// The request's spans, each with its resource's `service.name`.
pub(super) fn flatten(request: ExportTraceServiceRequest) -> Vec<CollectedSpan> {
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let service_name = resource_spans
            .resource
            .as_ref()
            .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
            .map(|kv| render(kv.value.as_ref()))
            .unwrap_or_default();
        for span in resource_spans
            .scope_spans
            .into_iter()
            .flat_map(|scope| scope.spans)
        {
            spans.push(CollectedSpan {
                service_name: service_name.clone(),
                trace_id: hex(&span.trace_id),
                span_id: hex(&span.span_id),
                parent_span_id: (!span.parent_span_id.is_empty())
                    .then(|| hex(&span.parent_span_id)),
                trace_state: span.trace_state,
                kind: SpanKind::try_from(span.kind).unwrap_or(SpanKind::Unspecified),
                attributes: attributes(&span.attributes),
                links: span
                    .links
                    .iter()
                    .map(|link| (hex(&link.trace_id), hex(&link.span_id)))
                    .collect(),
                name: span.name,
            });
        }
    }
    spans
}

fn attributes(pairs: &[KeyValue]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|kv| (kv.key.clone(), render(kv.value.as_ref())))
        .collect()
}

/// An attribute value as text: what a test compares against.
fn render(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        None => String::new(),
        Some(Value::StringValue(s)) => s.clone(),
        Some(Value::BoolValue(b)) => b.to_string(),
        Some(Value::IntValue(i)) => i.to_string(),
        Some(Value::DoubleValue(d)) => d.to_string(),
        Some(Value::BytesValue(bytes)) => hex(bytes),
        Some(Value::StringValueStrindex(i)) => i.to_string(),
        Some(Value::ArrayValue(array)) => {
            let items: Vec<String> = array.values.iter().map(|v| render(Some(v))).collect();
            format!("[{}]", items.join(", "))
        }
        Some(Value::KvlistValue(list)) => {
            let items: Vec<String> = list
                .values
                .iter()
                .map(|kv| format!("{}: {}", kv.key, render(kv.value.as_ref())))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// Lowercase hex, as trace and span ids are written in `traceparent`.
fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}
