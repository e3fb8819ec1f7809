//! The HTTP side: hyper's HTTP/1 server (keep-alive, chunked bodies, `100-continue`), a
//! task per connection on the receiver's own runtime, and what each request is answered.

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::{CONTENT_ENCODING, CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::Shared;
use super::decode::flatten;

/// The export path under the endpoint, as the OTLP/HTTP exporters append it.
const TRACES_PATH: &str = "/v1/traces";
/// The largest body accepted: a full batch of spans is well under this.
const MAX_BODY: usize = 32 * 1024 * 1024;
/// OTLP/HTTP's binary encoding, the only one served (the tests' exporters use it).
const PROTOBUF: &str = "application/x-protobuf";

type Answer = Response<Full<Bytes>>;

/// Accepts until `stop` fires or its sender goes; the connections' tasks are left to the
/// runtime, whose drop ends them.
pub(super) async fn accept(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        let stream = tokio::select! {
            biased;
            _ = &mut stop => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors and the like: the next accept may work.
                Err(_) => continue,
            },
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(Arc::clone(&shared), request));
            // An error only ends this connection: the client hung up or spoke no HTTP/1.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Never fails: every request gets an answer, refusals included.
async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Result<Answer, Infallible> {
    Ok(match refusal(&request) {
        Some(refused) => refused,
        None => export(&shared, request.into_body()).await,
    })
}

/// The answer to a request refused on its head alone, before its body is read.
fn refusal(request: &Request<Incoming>) -> Option<Answer> {
    let header = |name: HeaderName| {
        request.headers().get(name).map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .trim()
                .to_ascii_lowercase()
        })
    };
    if request.uri().path() != TRACES_PATH {
        return Some(text(StatusCode::NOT_FOUND, "only /v1/traces is served"));
    }
    if request.method() != Method::POST {
        return Some(text(StatusCode::METHOD_NOT_ALLOWED, "POST only"));
    }
    if !matches!(
        header(CONTENT_ENCODING).as_deref(),
        None | Some("" | "identity")
    ) {
        return Some(text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "compressed bodies are not supported",
        ));
    }
    if !header(CONTENT_TYPE).is_some_and(|t| t.starts_with(PROTOBUF)) {
        return Some(text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "only application/x-protobuf (OTLP/HTTP protobuf)",
        ));
    }
    // A `Content-Length` past the limit is refused before any of the body is read.
    if request.body().size_hint().lower() > MAX_BODY as u64 {
        return Some(too_large());
    }
    None
}

/// Reads, decodes and records one export; only a decoded one is counted.
async fn export(shared: &Shared, body: Incoming) -> Answer {
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => return too_large(),
        Err(e) => {
            return text(
                StatusCode::BAD_REQUEST,
                format!("the body could not be read: {e}"),
            );
        }
    };
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => {
            return text(
                StatusCode::BAD_REQUEST,
                format!("not an ExportTraceServiceRequest: {e}"),
            );
        }
    };
    shared.record(flatten(request));
    answer(
        StatusCode::OK,
        PROTOBUF,
        ExportTraceServiceResponse::default().encode_to_vec(),
    )
}

fn too_large() -> Answer {
    text(StatusCode::PAYLOAD_TOO_LARGE, "request too large")
}

fn text(status: StatusCode, message: impl Into<String>) -> Answer {
    answer(status, "text/plain", message.into())
}

fn answer(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Answer {
    let mut answer = Response::new(Full::new(body.into()));
    *answer.status_mut() = status;
    answer
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    answer
}
