//! A bound on the spans waiting for export, with every span let go counted: past the
//! bound a span is dropped at once (`queue_full`), and a batch the collector did not take
//! is dropped too (`export_failed`). A collector that is down or slow never holds up a
//! request, and never grows the process's memory. The queue itself is the SDK's batch
//! processor; this only counts what enters it and what leaves it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use adapters::telemetry::{DropReason, count_dropped_spans};
use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanExporter, SpanProcessor};

/// Spans handed to the batch processor and not yet through the exporter.
#[derive(Debug, Clone)]
pub(super) struct BoundedQueue {
    waiting: Arc<AtomicUsize>,
    capacity: usize,
}

impl BoundedQueue {
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            waiting: Arc::new(AtomicUsize::new(0)),
            capacity,
        }
    }

    pub(super) fn admitting<P: SpanProcessor>(&self, inner: P) -> Admitting<P> {
        Admitting {
            inner,
            queue: self.clone(),
        }
    }

    fn leave(&self, spans: usize) {
        self.waiting.fetch_sub(spans, Ordering::Relaxed);
    }
}

/// Lets a span into the batch processor only while fewer than the capacity wait, so the
/// processor's own queue (as large) never fills and drops one uncounted.
#[derive(Debug)]
pub(super) struct Admitting<P> {
    inner: P,
    queue: BoundedQueue,
}

impl<P: SpanProcessor> SpanProcessor for Admitting<P> {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        let waiting = self.queue.waiting.fetch_add(1, Ordering::Relaxed);
        if waiting >= self.queue.capacity {
            self.queue.leave(1);
            count_dropped_spans(DropReason::QueueFull, 1);
            return;
        }
        self.inner.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The exporter, counting each batch out of the queue once it is sent or refused.
#[derive(Debug)]
pub(super) struct CountingExporter<E> {
    inner: E,
    queue: BoundedQueue,
}

impl<E> CountingExporter<E> {
    pub(super) fn new(inner: E, queue: BoundedQueue) -> Self {
        Self { inner, queue }
    }
}

impl<E: SpanExporter> SpanExporter for CountingExporter<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let exported = self.inner.export(batch).await;
        self.queue.leave(spans);
        if exported.is_err() {
            count_dropped_spans(DropReason::ExportFailed, spans as u64);
        }
        exported
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}
