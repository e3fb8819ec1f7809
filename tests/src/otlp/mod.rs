//! An OTLP/HTTP receiver the tests start in-process: the server processes export their
//! spans to it (`OTEL_EXPORTER_OTLP_ENDPOINT`, HTTP/protobuf, `POST /v1/traces`), and a
//! test waits for the spans it expects and checks how they link up across processes.
//!
//! hyper's HTTP/1 server on `127.0.0.1:0` (`serve.rs`), on a thread with a runtime of its
//! own: tests call it from `#[tokio::test]` and from plain threads, and `wait_for` blocks.
//! Compressed bodies are refused (`415`): the tests do not turn exporter compression on.

mod decode;
mod serve;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// The span kinds, as OTLP numbers them; re-exported so a test need not name the proto crate.
pub use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

/// One span as exported, flattened to what the tests compare.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectedSpan {
    /// The resource's `service.name`: which process exported the span.
    pub service_name: String,
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
    /// `None` for a root span (the exporter sends no parent).
    pub parent_span_id: Option<String>,
    /// The W3C `tracestate` the span carries (empty when none).
    pub trace_state: String,
    pub name: String,
    pub kind: SpanKind,
    /// String, integer, boolean and float values as text (arrays as `[a, b]`).
    pub attributes: BTreeMap<String, String>,
    /// The linked spans: (trace id, span id), in hex as above.
    pub links: Vec<(String, String)>,
}

impl CollectedSpan {
    /// The attribute `key` as text, when the span has it.
    #[must_use]
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

/// A running receiver; stops accepting, and closes its connections, on drop.
#[derive(Debug)]
pub struct OtlpReceiver {
    address: SocketAddr,
    shared: Arc<Shared>,
    /// Tells the accept loop to end; `None` once sent.
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<()>>,
}

/// What the connections and the test share.
#[derive(Debug, Default)]
struct Shared {
    collected: Mutex<Collected>,
    /// False for a receiver that only counts (the benchmark's, which gets millions).
    keeps_spans: bool,
    /// Notified on every accepted export, so `wait_for` wakes instead of polling.
    arrived: Condvar,
}

#[derive(Debug, Default)]
struct Collected {
    spans: Vec<CollectedSpan>,
    requests: usize,
    /// Every span received, kept or not.
    received: usize,
}

impl Shared {
    fn collected(&self) -> MutexGuard<'_, Collected> {
        self.collected
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds one decoded export's spans and wakes every `wait_for`.
    fn record(&self, spans: Vec<CollectedSpan>) {
        {
            let mut collected = self.collected();
            collected.requests += 1;
            collected.received += spans.len();
            if self.keeps_spans {
                collected.spans.extend(spans);
            }
        }
        self.arrived.notify_all();
    }
}

impl OtlpReceiver {
    /// Binds `127.0.0.1:0` and starts serving on a thread of its own.
    ///
    /// # Errors
    /// When the port cannot be bound, or the thread or its runtime not started.
    pub fn start() -> io::Result<Self> {
        Self::start_keeping(true)
    }

    /// A receiver that decodes every export and only counts its spans ([`Self::received`]).
    ///
    /// # Errors
    /// As [`Self::start`].
    pub fn start_counting() -> io::Result<Self> {
        Self::start_keeping(false)
    }

    fn start_keeping(keeps_spans: bool) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let address = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let shared = Arc::new(Shared {
            keeps_spans,
            ..Shared::default()
        });
        let (stop, stopped) = oneshot::channel();
        let (ready, started) = mpsc::sync_channel(1);
        let server = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("otlp-receiver".to_owned())
                .spawn(move || run(listener, shared, stopped, &ready))?
        };
        let receiver = Self {
            address,
            shared,
            stop: Some(stop),
            server: Some(server),
        };
        // On an error the thread has ended already, so dropping `receiver` does not wait.
        started
            .recv()
            .map_err(|_| io::Error::other("the OTLP receiver's thread ended at its start"))??;
        Ok(receiver)
    }

    /// `http://127.0.0.1:PORT`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT` for a server.
    #[must_use]
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every span received so far, in the order received.
    #[must_use]
    pub fn spans(&self) -> Vec<CollectedSpan> {
        self.shared.collected().spans.clone()
    }

    /// How many spans were received, kept or not.
    #[must_use]
    pub fn received(&self) -> usize {
        self.shared.collected().received
    }

    /// How many export requests were received and decoded (malformed ones are not counted).
    #[must_use]
    pub fn requests(&self) -> usize {
        self.shared.collected().requests
    }

    /// Waits until `what` holds for the spans received, for at most `bound`.
    ///
    /// # Errors
    /// When it does not within `bound`: the spans received by then, for the failure message.
    pub fn wait_for(
        &self,
        what: impl Fn(&[CollectedSpan]) -> bool,
        bound: Duration,
    ) -> Result<Vec<CollectedSpan>, Vec<CollectedSpan>> {
        let deadline = Instant::now() + bound;
        let mut collected = self.shared.collected();
        loop {
            if what(&collected.spans) {
                return Ok(collected.spans.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(collected.spans.clone());
            }
            collected = self
                .shared
                .arrived
                .wait_timeout(collected, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // Fails only when the loop has ended already.
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
    }
}

/// The receiver's thread. The runtime is made and dropped here, never on a test's runtime
/// (dropping one inside another panics); its drop ends every connection's task.
fn run(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: oneshot::Receiver<()>,
    ready: &SyncSender<io::Result<()>>,
) {
    let started = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .and_then(|runtime| {
            // `from_std` registers the socket with the runtime it is called in.
            let listener = {
                let _context = runtime.enter();
                tokio::net::TcpListener::from_std(listener)?
            };
            Ok((runtime, listener))
        });
    match started {
        Ok((runtime, listener)) => {
            let _ = ready.send(Ok(()));
            runtime.block_on(serve::accept(listener, shared, stop));
        }
        Err(e) => {
            let _ = ready.send(Err(e));
        }
    }
}
