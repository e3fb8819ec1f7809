//! The span pipeline (`docs/tracing.md`), built only when `OTEL_EXPORTER_OTLP_ENDPOINT`
//! (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the W3C propagator, the SDK's batch
//! processor on its own thread, the OTLP HTTP/protobuf exporter. The SDK and the exporter
//! read the standard variables themselves (`OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`/`_ARG`, `OTEL_BSP_*`,
//! `OTEL_EXPORTER_OTLP_*`). Without an endpoint nothing is built and no span is made.

mod bounded;

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider,
};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::FilterFn;
use tracing_subscriber::registry::LookupSpan;

use self::bounded::{BoundedQueue, CountingExporter};

/// The service name when the environment names none.
const DEFAULT_SERVICE_NAME: &str = "order-service";

/// The queue's size when `OTEL_BSP_MAX_QUEUE_SIZE` says nothing usable (the SDK's default).
const DEFAULT_QUEUE: usize = 2048;

/// Ends the pipeline when dropped: the spans still queued are sent, within a bound.
#[derive(Debug)]
pub(crate) struct Pipeline {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl Pipeline {
    /// The layer that turns spans into OpenTelemetry spans and feeds them to the pipeline.
    pub(crate) fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.tracer.clone())
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_location(false)
            .with_level(false)
            .with_target(false)
            .with_filter(spans_and_warnings())
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let _ = self
            .provider
            .shutdown_with_timeout(std::time::Duration::from_secs(5));
    }
}

#[derive(Debug, thiserror::Error)]
#[error("cannot set up the OTLP span exporter")]
pub(crate) struct PipelineError(#[source] opentelemetry_otlp::ExporterBuildError);

/// The pipeline the spans go to; `None` when no endpoint is configured.
pub(crate) fn from_env() -> Result<Option<Pipeline>, PipelineError> {
    if !endpoint_configured() {
        return Ok(None);
    }
    // reqwest's client (rustls without a built-in provider) needs one installed; ring
    // is the provider the rest of the process already uses. Installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(PipelineError)?;
    let capacity = queue_capacity();
    let queue = BoundedQueue::new(capacity);
    let batches = BatchSpanProcessor::builder(CountingExporter::new(exporter, queue.clone()))
        .with_batch_config(
            BatchConfigBuilder::default()
                .with_max_queue_size(capacity)
                .build(),
        )
        .build();
    let provider = SdkTracerProvider::builder()
        .with_span_processor(queue.admitting(batches))
        .with_resource(resource())
        .build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let tracer = provider.tracer(env!("CARGO_PKG_NAME"));
    adapters::telemetry::switch_on();
    Ok(Some(Pipeline { provider, tracer }))
}

/// Every span at `info` or above becomes an OpenTelemetry span; of the log events, only
/// warnings and errors are kept on their span (the rest stay in the log).
fn spans_and_warnings() -> FilterFn<impl Fn(&tracing::Metadata<'_>) -> bool> {
    FilterFn::new(|metadata: &tracing::Metadata<'_>| {
        let level = *metadata.level();
        if metadata.is_span() {
            level <= tracing::Level::INFO
        } else {
            level <= tracing::Level::WARN
        }
    })
}

fn endpoint_configured() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()))
        && std::env::var("OTEL_SDK_DISABLED").map_or(true, |value| value != "true")
}

fn queue_capacity() -> usize {
    std::env::var("OTEL_BSP_MAX_QUEUE_SIZE")
        .ok()
        .and_then(|value| value.parse().ok())
        .filter(|&size| size > 0)
        .unwrap_or(DEFAULT_QUEUE)
}

/// The SDK's resource from the environment, named `order-service` unless
/// `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names it.
fn resource() -> Resource {
    let resource = Resource::builder().build();
    let unnamed = resource
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .is_none_or(|name| name.as_str().starts_with("unknown_service"));
    if unnamed {
        Resource::builder()
            .with_attribute(KeyValue::new("service.name", DEFAULT_SERVICE_NAME))
            .build()
    } else {
        resource
    }
}
