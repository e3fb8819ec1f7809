//! Logs to stderr, as text or JSON lines (`LOG_FORMAT`), filtered by `RUST_LOG`; beside
//! them, the span pipeline when one is configured (`docs/tracing.md`). A writer
//! thread does the writes in batches ([`log_writer`](super::log_writer)), so a request
//! never waits on a blocked stderr; 4 MiB of waiting lines make the logging thread wait
//! rather than drop lines.

use std::io::IsTerminal;
use std::sync::OnceLock;

use opentelemetry::trace::TraceContextExt;
use tracing::{Dispatch, Subscriber};
use tracing_subscriber::Layer;
#[cfg(feature = "otel")]
use tracing_subscriber::filter::FilterExt;
use tracing_subscriber::filter::{EnvFilter, filter_fn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::connection_errors::{counted, logged};
use crate::config::log_writer::{BatchedLines, WriterGuard, batched_stderr};
use crate::config::{ConfigError, Lookup, invalid, text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogFormat {
    Text,
    /// One object per line: the event's fields at the top level, the request's span
    /// fields under `span`.
    Json,
}

impl LogFormat {
    pub(crate) fn from_lookup(lookup: Lookup<'_>) -> Result<Self, ConfigError> {
        match text(lookup, "LOG_FORMAT")?.as_deref() {
            None | Some("text") => Ok(Self::Text),
            Some("json") => Ok(Self::Json),
            Some(_) => Err(invalid("LOG_FORMAT", "must be text or json")),
        }
    }
}

/// Held until the process ends: dropping it writes out the lines still queued and sends
/// the spans still waiting (`docs/tracing.md`).
#[derive(Debug)]
pub(crate) struct Logging {
    _lines: WriterGuard,
    #[cfg(feature = "otel")]
    _spans: Option<crate::telemetry::Pipeline>,
}

/// A panic is logged as one bounded line, without a location or a backtrace: a request
/// can make a library panic, and what it sent must not reach the log whole.
///
/// # Errors
/// The span exporter's configuration (`OTEL_EXPORTER_OTLP_*`) is unusable.
pub(crate) fn init(format: LogFormat) -> anyhow::Result<Logging> {
    std::panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
            .unwrap_or("");
        tracing::error!(
            panic = %bounded(payload),
            "a task panicked; its request or connection was dropped"
        );
    }));
    // The spans made only for traces (target `spans`) are never log lines: with no span
    // pipeline, nothing wants them and they cost nothing.
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let filter = match "spans=off".parse() {
        Ok(no_trace_spans) => filter.add_directive(no_trace_spans),
        // A fixed directive that parses; never reached.
        Err(_) => filter,
    };
    let (writer, guard) = batched_stderr()?;
    #[cfg(feature = "otel")]
    let pipeline = crate::telemetry::from_env()?;
    #[cfg(feature = "otel")]
    if let Some(pipeline) = &pipeline {
        // Each layer filters for itself: the log keeps its filter, the spans go to the
        // pipeline whatever the log's level.
        let stack = tracing_subscriber::registry().with(counted());
        let filter = filter.and(filter_fn(logged));
        match format {
            LogFormat::Text => stack
                .with(text_lines(writer).with_filter(filter))
                .with(pipeline.layer())
                .try_init()?,
            LogFormat::Json => stack
                .with(json_lines(writer).with_filter(filter))
                .with(pipeline.layer())
                .try_init()?,
        }
    } else {
        lines_only(format, writer, filter)?;
    }
    #[cfg(not(feature = "otel"))]
    lines_only(format, writer, filter)?;
    let _ = GLOBAL.set(tracing::dispatcher::get_default(Clone::clone));
    Ok(Logging {
        _lines: guard,
        #[cfg(feature = "otel")]
        _spans: pipeline,
    })
}

/// Without a span pipeline the filter is the whole subscriber's, as it was before tracing:
/// a disabled callsite (every span of target `spans`) is then never evaluated again. Beside
/// another layer it would be asked on every call.
fn lines_only(format: LogFormat, writer: BatchedLines, filter: EnvFilter) -> anyhow::Result<()> {
    let stack = tracing_subscriber::registry().with(filter).with(counted());
    let logged = filter_fn(logged);
    match format {
        LogFormat::Text => stack
            .with(text_lines(writer).with_filter(logged))
            .try_init()?,
        LogFormat::Json => stack
            .with(json_lines(writer).with_filter(logged))
            .try_init()?,
    }
    Ok(())
}

fn text_lines<S>(
    writer: BatchedLines,
) -> tracing_subscriber::fmt::Layer<
    S,
    tracing_subscriber::fmt::format::DefaultFields,
    tracing_subscriber::fmt::format::Format,
    BatchedLines,
>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(std::io::stderr().is_terminal())
}

/// The subscriber, for reading a span's trace context while a line is written (inside
/// the subscriber, `get_default` answers with no subscriber at all).
static GLOBAL: OnceLock<Dispatch> = OnceLock::new();

/// One object per line: the event's fields at the top level, the request's span fields
/// under `span`, and the current span's `trace_id` and `span_id` when it has a trace.
fn json_lines<S>(writer: BatchedLines) -> json_subscriber::fmt::Layer<S, BatchedLines>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    let mut layer = json_subscriber::layer()
        .with_writer(writer)
        .flatten_event(true)
        .with_current_span(true)
        .with_span_list(false);
    layer
        .inner_layer_mut()
        .add_multiple_dynamic_fields(|event, context, fields| {
            let (Some(span), Some(dispatch)) = (context.event_span(event), GLOBAL.get()) else {
                return;
            };
            let id = span.id();
            drop(span);
            let Some(otel) = tracing_opentelemetry::get_otel_context(&id, dispatch) else {
                return;
            };
            let ids = otel.span().span_context().clone();
            if ids.is_valid() {
                let _ = fields.write_field("trace_id", ids.trace_id().to_string());
                let _ = fields.write_field("span_id", ids.span_id().to_string());
            }
        });
    layer
}

/// At most 200 characters, with control characters escaped.
fn bounded(text: &str) -> String {
    text.chars()
        .take(200)
        .flat_map(char::escape_debug)
        .collect()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn parse(value: Option<&str>) -> Result<LogFormat, ConfigError> {
        LogFormat::from_lookup(&|_| value.map(OsString::from))
    }

    #[test]
    fn text_is_the_default_and_json_is_the_other_choice() {
        assert_eq!(parse(None).unwrap(), LogFormat::Text);
        assert_eq!(parse(Some("text")).unwrap(), LogFormat::Text);
        assert_eq!(parse(Some("json")).unwrap(), LogFormat::Json);
    }

    #[test]
    fn a_panic_message_is_cut_and_escaped() {
        let shown = bounded(&format!("x\n{}", "y".repeat(500)));
        assert!(shown.starts_with("x\\ny"), "{shown}");
        assert_eq!(shown.chars().count(), 201);
    }

    #[test]
    fn another_format_is_refused_naming_the_variable() {
        let error = parse(Some("JSON-lines")).unwrap_err();
        assert_eq!(error.variable, "LOG_FORMAT");
        assert!(!error.to_string().contains("JSON-lines"));
    }
}
