//! One span per statement, with the OpenTelemetry database conventions. The span is made
//! where the statement is sent (`run`, `with_connection`), so its parent is the
//! transaction or read it belongs to on both stores; MySQL adds the statement's text
//! from diesel's instrumentation, which sees the SQL with placeholders, never the values.

use diesel::connection::{Instrumentation, InstrumentationEvent};
use tracing::Span;
use tracing::field::Empty;

/// `label` names the statement in the code's own words (`record insert`), which is also
/// the low-cardinality summary the conventions ask for. Only inside a span: a background
/// poll (the relay's claim, the workers' due read) would otherwise start a trace of one
/// statement several times a second.
pub(crate) fn statement_span(system: &'static str, label: &'static str) -> Span {
    if !super::is_on() || Span::current().is_none() {
        return Span::none();
    }
    tracing::info_span!(
        target: "spans",
        "statement",
        otel.name = label,
        otel.kind = "client",
        db.system.name = system,
        db.query.summary = label,
        db.query.text = Empty,
    )
}

/// Records the statements' text on the span they run in, joined by `; ` when one step
/// sends several. Installed on a connection only while tracing is on.
#[derive(Debug, Default)]
pub(crate) struct QueryText {
    span: Option<tracing::Id>,
    text: String,
}

impl Instrumentation for QueryText {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        let InstrumentationEvent::FinishQuery { query, .. } = event else {
            return;
        };
        let span = Span::current();
        let Some(id) = span.id() else {
            return;
        };
        if self.span.as_ref() != Some(&id) {
            self.span = Some(id);
            self.text.clear();
        } else {
            self.text.push_str("; ");
        }
        // diesel shows the SQL, then ` -- binds: [...]` with the values, which stay out.
        let shown = query.to_string();
        self.text
            .push_str(shown.split(" -- binds: ").next().unwrap_or_default());
        span.record("db.query.text", self.text.as_str());
    }
}
