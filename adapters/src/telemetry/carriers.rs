//! Trace context across process boundaries: read from a request's or a message's
//! headers, written into a call's or a message's headers, and kept as a `traceparent`
//! column for work that continues later (an outbox event, a leased operation). Reading
//! and writing the W3C format is the propagator's the server installed; only the shape of
//! an incoming `traceparent` is checked here first.

use std::marker::PhantomData;

use opentelemetry::propagation::{Extractor, Injector};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::is_on;

const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// The W3C bounds of a `tracestate` a vendor must pass on: 32 members, 512 characters.
/// Over either, it is dropped whole (the trace goes on without it), so a caller cannot
/// make every span of its request, authenticated or not, carry kilobytes.
const MAX_TRACESTATE_MEMBERS: usize = 32;
const MAX_TRACESTATE_CHARS: usize = 512;

/// Headers seen through a lookup function, so any header map can be read.
struct HeaderCarrier<'a, F> {
    lookup: F,
    headers: PhantomData<&'a str>,
}

impl<'a, F: Fn(&str) -> Option<&'a str>> Extractor for HeaderCarrier<'a, F> {
    fn get(&self, key: &str) -> Option<&str> {
        let value = (self.lookup)(key)?;
        let kept = match key {
            TRACEPARENT => well_formed(value),
            TRACESTATE => within_bounds(value),
            _ => true,
        };
        kept.then_some(value)
    }

    fn keys(&self) -> Vec<&str> {
        Vec::new()
    }
}

fn within_bounds(tracestate: &str) -> bool {
    tracestate.len() <= MAX_TRACESTATE_CHARS
        && tracestate.split(',').count() <= MAX_TRACESTATE_MEMBERS
}

/// The W3C shape the propagator leaves unchecked: `version-traceid-parentid-flags` with
/// exactly 2, 32, 16 and 2 lowercase hex digits (a 31-digit trace id would otherwise be
/// read as another trace), and more only after a version above `00`.
fn well_formed(traceparent: &str) -> bool {
    let bytes = traceparent.as_bytes();
    let Some(head) = bytes.get(..55) else {
        return false;
    };
    let shaped = head.iter().enumerate().all(|(at, &byte)| match at {
        2 | 35 | 52 => byte == b'-',
        _ => byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte),
    });
    let version_00 = head.starts_with(b"00");
    let rest_allowed = match bytes.get(55) {
        None => true,
        Some(&byte) => !version_00 && byte == b'-',
    };
    shaped && !head.starts_with(b"ff") && rest_allowed
}

/// The trace id (32 lowercase hex digits) of a stored `traceparent`, for a person to find
/// the trace in a tracing backend; `None` for one of another shape, which names no trace
/// this service would continue either.
pub(crate) fn trace_id(traceparent: &str) -> Option<&str> {
    well_formed(traceparent)
        .then(|| traceparent.get(3..35))
        .flatten()
}

/// `span` continues the sender's trace (a request's or a message's headers, read through
/// `header`) when its `traceparent` is valid; a missing or malformed one leaves the span
/// to start a trace of its own.
pub fn continue_from_headers<'a>(span: &Span, header: impl Fn(&str) -> Option<&'a str>) {
    if !is_on() {
        return;
    }
    let carrier = HeaderCarrier {
        lookup: header,
        headers: PhantomData,
    };
    let parent =
        opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&carrier));
    // Only an error when no span pipeline is installed, which `is_on` rules out.
    let _ = span.set_parent(parent);
}

/// `span` continues the trace a stored `traceparent` names (the request that wrote the
/// row); without one, or a malformed one, it starts its own.
pub fn continue_trace(span: &Span, traceparent: Option<&str>) {
    if let Some(stored) = traceparent.filter(|_| is_on()) {
        continue_from_headers(span, |key| (key == TRACEPARENT).then_some(stored));
    }
}

/// The current span's context as a `traceparent`, to be stored with work that another
/// process picks up later. `None` when tracing is off.
pub(crate) fn current_traceparent() -> Option<String> {
    if !is_on() {
        return None;
    }
    let mut carrier = TraceparentOnly(None);
    inject_current(&mut carrier);
    carrier.0
}

/// The headers that carry the current span's context to a call (`traceparent`, and
/// `tracestate` when the trace has one); none when tracing is off.
pub(crate) fn current_trace_headers() -> Vec<(String, String)> {
    let mut headers = TraceHeaders(Vec::new());
    inject_current(&mut headers);
    headers.0
}

/// Writes the current span's context through `carrier`; nothing when tracing is off.
fn inject_current(carrier: &mut dyn Injector) {
    if !is_on() {
        return;
    }
    let context = Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, carrier);
    });
}

struct TraceHeaders(Vec<(String, String)>);

impl Injector for TraceHeaders {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
    }
}

struct TraceparentOnly(Option<String>);

impl Injector for TraceparentOnly {
    fn set(&mut self, key: &str, value: String) {
        if key == TRACEPARENT {
            self.0 = Some(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_TRACESTATE_CHARS, trace_id, well_formed, within_bounds};

    #[test]
    fn a_tracestate_is_kept_within_32_members_and_512_characters() {
        let members = |n: usize| {
            (0..n)
                .map(|i| format!("v{i}=x"))
                .collect::<Vec<_>>()
                .join(",")
        };
        assert!(within_bounds("vendor=opaque-1"));
        assert!(within_bounds(&members(32)));
        assert!(!within_bounds(&members(33)));
        assert!(within_bounds(&format!(
            "v={}",
            "x".repeat(MAX_TRACESTATE_CHARS - 2)
        )));
        assert!(!within_bounds(&format!(
            "v={}",
            "x".repeat(MAX_TRACESTATE_CHARS - 1)
        )));
    }

    #[test]
    fn only_the_w3c_shape_is_read() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert!(well_formed(good));
        assert!(well_formed(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"
        ));
        for bad in [
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e47360-0f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "",
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn a_stored_traceparent_gives_its_trace_id_and_another_shape_none() {
        let stored = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(trace_id(stored), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(
            trace_id("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"),
            None
        );
        assert_eq!(trace_id(""), None);
    }
}
