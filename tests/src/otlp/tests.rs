use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::Link;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;

use super::*;

const TRACE: [u8; 16] = [
    0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36,
];
const BOUND: Duration = Duration::from_secs(10);

fn key_value(key: &str, value: Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

fn span(name: &str, id: u8, parent: Option<u8>, kind: SpanKind) -> Span {
    Span {
        trace_id: TRACE.to_vec(),
        span_id: vec![0, 0, 0, 0, 0, 0, 0, id],
        parent_span_id: parent
            .map(|p| vec![0, 0, 0, 0, 0, 0, 0, p])
            .unwrap_or_default(),
        name: name.to_owned(),
        kind: kind as i32,
        ..Span::default()
    }
}

/// One resource (`service`) with `spans` in one scope, encoded.
fn export(service: &str, spans: Vec<Span>) -> Vec<u8> {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![key_value(
                    "service.name",
                    Value::StringValue(service.to_owned()),
                )],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
    .encode_to_vec()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(BOUND))
        .build()
        .into()
}

/// Status, content type and body of a POST to `/v1/traces`.
fn post(agent: &ureq::Agent, receiver: &OtlpReceiver, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut response = agent
        .post(format!("{}/v1/traces", receiver.endpoint()))
        .header("content-type", "application/x-protobuf")
        .send(body)
        .unwrap();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.body_mut().read_to_vec().unwrap();
    (response.status().as_u16(), content_type, body)
}

#[test]
fn decodes_exported_spans_over_a_kept_alive_connection() {
    let receiver = OtlpReceiver::start().unwrap();
    assert!(receiver.endpoint().starts_with("http://127.0.0.1:"));
    let mut client = span("POST", 2, Some(1), SpanKind::Client);
    client.attributes = vec![
        key_value("http.method", Value::StringValue("POST".to_owned())),
        key_value("http.status_code", Value::IntValue(201)),
        key_value("retry", Value::BoolValue(false)),
        key_value("ratio", Value::DoubleValue(0.5)),
    ];
    client.links = vec![Link {
        trace_id: vec![0xab; 16],
        span_id: vec![0xcd; 8],
        ..Link::default()
    }];
    let agent = agent();

    let first = export("orders", vec![span("capture", 1, None, SpanKind::Server)]);
    let (status, content_type, body) = post(&agent, &receiver, &first);
    assert_eq!(
        (status, content_type.as_str()),
        (200, "application/x-protobuf")
    );
    assert_eq!(
        ExportTraceServiceResponse::decode(body.as_slice()).unwrap(),
        ExportTraceServiceResponse::default()
    );
    assert_eq!(
        post(&agent, &receiver, &export("worker", vec![client])).0,
        200
    );

    let spans = receiver.wait_for(|s| s.len() == 2, BOUND).unwrap();
    assert_eq!(receiver.requests(), 2);
    assert_eq!(spans, receiver.spans());
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    assert_eq!(
        spans[0],
        CollectedSpan {
            service_name: "orders".to_owned(),
            trace_id: trace.to_owned(),
            span_id: "0000000000000001".to_owned(),
            parent_span_id: None,
            trace_state: String::new(),
            name: "capture".to_owned(),
            kind: SpanKind::Server,
            attributes: BTreeMap::new(),
            links: Vec::new(),
        }
    );
    let client = &spans[1];
    assert_eq!(client.service_name, "worker");
    assert_eq!(client.trace_id, trace);
    assert_eq!(client.parent_span_id.as_deref(), Some("0000000000000001"));
    assert_eq!(client.kind, SpanKind::Client);
    assert_eq!(client.attribute("http.method"), Some("POST"));
    assert_eq!(client.attribute("http.status_code"), Some("201"));
    assert_eq!(client.attribute("retry"), Some("false"));
    assert_eq!(client.attribute("ratio"), Some("0.5"));
    assert_eq!(
        client.links,
        vec![("ab".repeat(16), "cd".repeat(8))],
        "links as (trace id, span id)"
    );
}

#[test]
fn a_malformed_body_is_refused_and_not_collected() {
    let receiver = OtlpReceiver::start().unwrap();
    // Field 1, length-delimited, says 5 bytes and has 2.
    let (status, _, body) = post(&agent(), &receiver, b"\x0a\x05ab");
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    assert_eq!(receiver.requests(), 0);
    let waited = receiver.wait_for(|s| !s.is_empty(), Duration::from_millis(50));
    assert_eq!(waited, Err(Vec::new()));
}

#[test]
fn wait_for_wakes_on_a_later_export() {
    let receiver = OtlpReceiver::start().unwrap();
    let endpoint = receiver.endpoint();
    let body = export("orders", vec![span("late", 7, None, SpanKind::Internal)]);
    let sender = std::thread::spawn(move || {
        agent()
            .post(format!("{endpoint}/v1/traces"))
            .header("content-type", "application/x-protobuf")
            .send(&body[..])
            .map(|r| r.status().as_u16())
    });
    let spans = receiver
        .wait_for(|s| s.iter().any(|s| s.name == "late"), BOUND)
        .unwrap();
    assert_eq!(spans.len(), 1);
    assert_eq!(sender.join().unwrap().unwrap(), 200);
}

/// Sends `request` as is on `stream` and reads one answer: its status and body.
fn exchange(stream: &mut TcpStream, request: &[u8]) -> (u16, Vec<u8>) {
    stream.write_all(request).unwrap();
    let mut raw = Vec::new();
    let mut byte = [0; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "closed: {raw:?}");
        raw.push(byte[0]);
    }
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut response = httparse::Response::new(&mut headers);
    response.parse(&raw).unwrap();
    let length: usize = response
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .map(|h| std::str::from_utf8(h.value).unwrap().parse().unwrap())
        .unwrap();
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    (response.code.unwrap(), body)
}

fn connect(receiver: &OtlpReceiver) -> TcpStream {
    let stream = TcpStream::connect(receiver.address).unwrap();
    stream.set_read_timeout(Some(BOUND)).unwrap();
    stream
}

#[test]
fn chunked_and_sized_bodies_on_one_connection() {
    let receiver = OtlpReceiver::start().unwrap();
    let mut stream = connect(&receiver);
    let body = export("orders", vec![span("chunked", 3, None, SpanKind::Server)]);
    let (a, b) = body.split_at(body.len() / 2);
    let mut request = b"POST /v1/traces HTTP/1.1\r\nhost: x\r\n\
        content-type: application/x-protobuf\r\ntransfer-encoding: chunked\r\n\r\n"
        .to_vec();
    for chunk in [a, b] {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(exchange(&mut stream, &request).0, 200);

    let body = export("orders", vec![span("sized", 4, None, SpanKind::Server)]);
    let mut request = format!(
        "POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    assert_eq!(exchange(&mut stream, &request).0, 200);

    let names: Vec<String> = receiver.spans().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["chunked", "sized"]);
    assert_eq!(receiver.requests(), 2);
}

#[test]
fn refusals_by_path_method_encoding_type_and_size() {
    let receiver = OtlpReceiver::start().unwrap();
    let head = |first: &str, headers: &str| {
        format!("{first} HTTP/1.1\r\nhost: x\r\n{headers}content-length: 0\r\n\r\n").into_bytes()
    };
    let protobuf = "content-type: application/x-protobuf\r\n";
    let cases = [
        (head("POST /v1/metrics", protobuf), 404),
        (head("GET /v1/traces", ""), 405),
        (
            head(
                "POST /v1/traces",
                &format!("{protobuf}content-encoding: gzip\r\n"),
            ),
            415,
        ),
        (
            head("POST /v1/traces", "content-type: application/json\r\n"),
            415,
        ),
    ];
    for (request, expected) in cases {
        // A connection each: hyper may close one after a refusal that left a body unread.
        let (status, body) = exchange(&mut connect(&receiver), &request);
        assert_eq!(status, expected, "{}", String::from_utf8_lossy(&body));
    }
    // Refused on its Content-Length alone, before any of the body is sent.
    let too_large = format!(
        "POST /v1/traces HTTP/1.1\r\nhost: x\r\n{protobuf}content-length: {}\r\n\r\n",
        32 * 1024 * 1024 + 1
    );
    assert_eq!(
        exchange(&mut connect(&receiver), too_large.as_bytes()).0,
        413
    );
    assert_eq!(receiver.requests(), 0);
}

#[test]
fn drop_closes_open_connections() {
    let receiver = OtlpReceiver::start().unwrap();
    let mut stream = connect(&receiver);
    // A kept-alive connection, idle between requests, as the exporter leaves it.
    let (status, _) = exchange(&mut stream, b"GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    assert_eq!(status, 404);
    drop(receiver);
    assert_eq!(stream.read(&mut [0; 1]).unwrap(), 0, "closed by the drop");
}

/// The integration tests start and drop it inside `#[tokio::test]`: its own runtime lives
/// on its own thread, so neither nests in the test's.
#[tokio::test]
async fn starts_and_stops_inside_a_current_thread_runtime() {
    let receiver = OtlpReceiver::start().unwrap();
    let body = export("orders", vec![span("nested", 5, None, SpanKind::Server)]);
    assert_eq!(post(&agent(), &receiver, &body).0, 200);
    assert_eq!(receiver.wait_for(|s| s.len() == 1, BOUND).unwrap().len(), 1);
    drop(receiver);
}
