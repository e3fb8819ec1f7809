//! Logs to stderr, as text or JSON lines (`LOG_FORMAT`), filtered by `RUST_LOG`. A writer
//! thread does the writes, so a request never waits on a blocked stderr; a full queue
//! (128 000 lines) makes the logging thread wait rather than drop lines.

use std::io::{BufWriter, IsTerminal};

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};

use tracing_subscriber::EnvFilter;

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

/// Keep the guard until the process ends: dropping it writes out the lines still queued.
/// A panic is logged as one bounded line, without a location or a backtrace: a request
/// can make a library panic, and what it sent must not reach the log whole.
pub(crate) fn init(format: LogFormat) -> WorkerGuard {
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
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .finish(BufWriter::new(std::io::stderr()));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
    guard
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
