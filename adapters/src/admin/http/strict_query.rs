//! Query strings read strictly, as bodies are: every parameter known, none repeated or
//! empty, each value checked by its reader. A violation's pointer `/name` names the
//! parameter. The routes' own parameters are in `query.rs`.

use std::borrow::Cow;

use chrono::{DateTime, Utc};

use crate::http::edge::members::FieldError;
use crate::http::edge::strict_json::{MAX_REPORTED, member_pointer};

/// The query's parameters, each once, by name.
pub(super) struct Params {
    values: Vec<(&'static str, String)>,
}

impl Params {
    pub(super) fn parse(query: &str, allowed: &[&'static str]) -> Result<Self, BadParameters> {
        let mut values: Vec<(&'static str, String)> = Vec::new();
        let mut errors = Vec::new();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            let Some(known) = allowed.iter().copied().find(|known| *known == name) else {
                errors.push(FieldError {
                    pointer: member_pointer(&name),
                    reason: "unknown parameter",
                });
                continue;
            };
            if values.iter().any(|(seen, _)| *seen == known) {
                errors.push(field(known, "this parameter appears more than once"));
            } else if value.is_empty() {
                errors.push(field(known, "must not be empty"));
            } else {
                values.push((known, value.into_owned()));
            }
        }
        errors.truncate(MAX_REPORTED);
        if errors.is_empty() {
            Ok(Self { values })
        } else {
            Err(BadParameters(errors))
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, value)| value.as_str())
    }
}

fn field(name: &'static str, reason: &'static str) -> FieldError {
    FieldError {
        pointer: Cow::Owned(format!("/{name}")),
        reason,
    }
}

/// Reads `name` with `parse`, collecting its violation; `None` when absent or bad.
pub(super) struct Reader<'a> {
    params: &'a Params,
    errors: Vec<FieldError>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(params: &'a Params) -> Self {
        Self {
            params,
            errors: Vec::new(),
        }
    }

    pub(super) fn optional<T>(
        &mut self,
        name: &'static str,
        reason: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let value = self.params.get(name)?;
        let parsed = parse(value);
        if parsed.is_none() {
            self.errors.push(field(name, reason));
        }
        parsed
    }

    pub(super) fn required<T>(
        &mut self,
        name: &'static str,
        reason: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        if self.params.get(name).is_none() {
            self.errors.push(field(name, "is required"));
            return None;
        }
        self.optional(name, reason, parse)
    }

    pub(super) fn finish<T>(self, value: impl FnOnce() -> Option<T>) -> Result<T, BadParameters> {
        let mut errors = self.errors;
        if errors.is_empty()
            && let Some(value) = value()
        {
            return Ok(value);
        }
        errors.truncate(MAX_REPORTED);
        Err(BadParameters(errors))
    }
}

/// Plain digits: no sign, no leading zero, no spaces.
pub(super) fn canonical_integer(raw: &str) -> Option<u64> {
    let plain = raw.bytes().all(|b| b.is_ascii_digit()) && !(raw.len() > 1 && raw.starts_with('0'));
    plain.then(|| raw.parse().ok()).flatten()
}

pub(super) fn positive_id<T>(
    parse: fn(u64) -> Result<T, domain::IdError>,
) -> impl FnOnce(&str) -> Option<T> {
    move |raw| canonical_integer(raw).and_then(|n| parse(n).ok())
}

pub(super) fn timestamp(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

/// What was wrong with each parameter; the command line prints it, the HTTP route answers
/// `400 invalid_query` with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(.0))]
pub struct BadParameters(pub(crate) Vec<FieldError>);

fn describe(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|error| {
            format!(
                "{}: {}",
                error.pointer.trim_start_matches('/'),
                error.reason
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
