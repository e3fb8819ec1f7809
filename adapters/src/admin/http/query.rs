//! Query strings read strictly, as bodies are: every parameter known, none repeated or
//! empty, each value checked (`docs/admin.md#listing`). A violation's pointer `/name`
//! names the parameter.

use std::borrow::Cow;

use application::admin::{
    AuditCursor, Cursor, KeyAddress, OperationCursor, OperationFilter, PageLimit,
};
use chrono::{DateTime, Utc};
use domain::{ActorId, IdempotencyKey, Operation, OperationState, TenantId};

use crate::http::edge::members::FieldError;
use crate::http::edge::strict_json::{MAX_REPORTED, member_pointer};

/// The query's parameters, each once, by name.
struct Params {
    values: Vec<(&'static str, String)>,
}

impl Params {
    fn parse(query: &str, allowed: &[&'static str]) -> Result<Self, BadParameters> {
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
struct Reader<'a> {
    params: &'a Params,
    errors: Vec<FieldError>,
}

impl Reader<'_> {
    fn optional<T>(
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

    fn required<T>(
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

    fn limit(&mut self) -> PageLimit {
        self.optional("limit", "must be an integer from 1 to 100", |raw| {
            canonical_integer(raw).and_then(|n| PageLimit::parse(n).ok())
        })
        .unwrap_or_default()
    }

    fn finish<T>(self, value: impl FnOnce() -> Option<T>) -> Result<T, BadParameters> {
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
fn canonical_integer(raw: &str) -> Option<u64> {
    let plain = raw.bytes().all(|b| b.is_ascii_digit()) && !(raw.len() > 1 && raw.starts_with('0'));
    plain.then(|| raw.parse().ok()).flatten()
}

fn positive_id<T>(parse: fn(u64) -> Result<T, domain::IdError>) -> impl FnOnce(&str) -> Option<T> {
    move |raw| canonical_integer(raw).and_then(|n| parse(n).ok())
}

fn timestamp(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

const ID_REASON: &str = "must be a positive integer of at most 19 digits";

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

impl From<Vec<FieldError>> for BadParameters {
    fn from(errors: Vec<FieldError>) -> Self {
        Self(errors)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct OperationsQuery {
    pub filter: OperationFilter,
    pub cursor: Option<OperationCursor>,
    pub limit: PageLimit,
}

/// # Errors
/// Every violation, named by parameter.
pub fn operations_query(query: &str) -> Result<OperationsQuery, BadParameters> {
    const NAMES: [&str; 7] = [
        "state",
        "type",
        "tenant",
        "acceptedBefore",
        "acceptedAfter",
        "cursor",
        "limit",
    ];
    let params = Params::parse(query, &NAMES)?;
    let mut read = Reader {
        params: &params,
        errors: Vec::new(),
    };
    let filter = OperationFilter {
        state: read.optional("state", "must be an operation state", |raw| {
            OperationState::from_api(raw).ok()
        }),
        operation_type: read.optional("type", "must be an operation name", |raw| {
            Operation::parse(raw).ok().map(|op| op.as_str().to_owned())
        }),
        tenant: read.optional("tenant", ID_REASON, positive_id(TenantId::parse)),
        accepted_before: read.optional(
            "acceptedBefore",
            "must be an RFC 3339 date-time",
            timestamp,
        ),
        accepted_after: read.optional("acceptedAfter", "must be an RFC 3339 date-time", timestamp),
    };
    let cursor = read.optional(
        "cursor",
        "must be a nextCursor this route returned",
        |raw| OperationCursor::decode(raw).ok(),
    );
    let limit = read.limit();
    read.finish(|| {
        Some(OperationsQuery {
            filter,
            cursor,
            limit,
        })
    })
}

/// # Errors
/// Every violation, named by parameter.
pub fn audit_query(query: &str) -> Result<(Option<AuditCursor>, PageLimit), BadParameters> {
    let params = Params::parse(query, &["cursor", "limit"])?;
    let mut read = Reader {
        params: &params,
        errors: Vec::new(),
    };
    let cursor = read.optional(
        "cursor",
        "must be a nextCursor this route returned",
        |raw| AuditCursor::decode(raw).ok(),
    );
    let limit = read.limit();
    read.finish(|| Some((cursor, limit)))
}

/// # Errors
/// Every violation, named by parameter.
pub fn key_query(query: &str) -> Result<KeyAddress, BadParameters> {
    let params = Params::parse(query, &["tenant", "actor", "operation", "key"])?;
    let mut read = Reader {
        params: &params,
        errors: Vec::new(),
    };
    let tenant = read.required("tenant", ID_REASON, positive_id(TenantId::parse));
    let actor = read.required("actor", ID_REASON, positive_id(ActorId::parse));
    let operation = read.required("operation", "must be an operation name", |raw| {
        Operation::parse(raw).ok()
    });
    let key = read.required(
        "key",
        "must be 1 to 128 characters of A-Z a-z 0-9 - _",
        |raw| IdempotencyKey::parse(raw).ok(),
    );
    read.finish(|| {
        Some(KeyAddress {
            tenant: tenant?,
            actor: actor?,
            operation: operation?,
            key: key?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointers(errors: BadParameters) -> Vec<(String, &'static str)> {
        errors
            .0
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn no_parameters_list_everything_fifty_at_a_time() {
        let query = operations_query("").unwrap();
        assert_eq!(query.filter, OperationFilter::default());
        assert_eq!((query.cursor, query.limit), (None, PageLimit::DEFAULT));
    }

    #[test]
    fn every_filter_is_read() {
        let query = operations_query(
            "state=needs_review&type=payments.capture.v1&tenant=7\
             &acceptedBefore=2026-12-01T10:00:00Z&acceptedAfter=2026-11-30T10:00:00%2B09:00&limit=100",
        )
        .unwrap();
        assert_eq!(query.filter.state, Some(OperationState::NeedsReview));
        assert_eq!(
            query.filter.operation_type.as_deref(),
            Some("payments.capture.v1")
        );
        assert_eq!(query.filter.tenant.map(TenantId::get), Some(7));
        assert_eq!(
            query.filter.accepted_after.map(|at| at.to_rfc3339()),
            Some("2026-11-30T01:00:00+00:00".to_owned())
        );
        assert_eq!(query.limit.get(), 100);
    }

    #[test]
    fn unknown_repeated_empty_and_bad_parameters_are_each_named() {
        let errors =
            operations_query("limit=0&state=done&tenant=07&page=2&type=&cursor=x").unwrap_err();
        assert_eq!(
            pointers(errors),
            [
                ("/page".to_owned(), "unknown parameter"),
                ("/type".to_owned(), "must not be empty"),
            ]
        );
        let errors = operations_query("limit=0&state=done&tenant=07&cursor=x").unwrap_err();
        assert_eq!(
            pointers(errors),
            [
                ("/state".to_owned(), "must be an operation state"),
                ("/tenant".to_owned(), ID_REASON),
                (
                    "/cursor".to_owned(),
                    "must be a nextCursor this route returned"
                ),
                ("/limit".to_owned(), "must be an integer from 1 to 100"),
            ]
        );
        assert_eq!(
            pointers(audit_query("limit=1&limit=2").unwrap_err()),
            [("/limit".to_owned(), "this parameter appears more than once")]
        );
    }

    #[test]
    fn a_key_needs_all_four_parts() {
        let address = key_query("tenant=1&actor=2&operation=orders.create.v1&key=k-1").unwrap();
        assert_eq!(address.key.as_str(), "k-1");
        assert_eq!(
            pointers(key_query("tenant=1&key=a%20b").unwrap_err()),
            [
                ("/actor".to_owned(), "is required"),
                ("/operation".to_owned(), "is required"),
                (
                    "/key".to_owned(),
                    "must be 1 to 128 characters of A-Z a-z 0-9 - _"
                ),
            ]
        );
    }
}
