//! RFC 3339, UTC, microseconds: `DATETIME(6)` keeps no more, so stored bytes and rows agree.

use chrono::{DateTime, SecondsFormat, Utc};

/// `at` as `2026-01-31T09:30:00.123456Z`.
#[must_use]
pub fn rfc3339_micros(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// `None` outside the range `chrono` represents.
#[must_use]
pub(crate) fn from_micros(micros: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_micros(micros)
}
