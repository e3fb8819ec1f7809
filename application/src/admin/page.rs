//! Keyset pages, newest first: a cursor names the last item a page showed, so the next page
//! starts after it however many rows arrive meanwhile, and no `OFFSET` is ever counted.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::timestamps::from_micros;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer from 1 to {}", PageLimit::MAX)]
pub struct BadLimit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("must be a nextCursor this server returned")]
pub struct BadCursor;

/// How many items a page holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimit(u8);

impl PageLimit {
    pub const MAX: u8 = 100;
    pub const DEFAULT: Self = Self(50);

    /// # Errors
    /// [`BadLimit`] outside 1..=100.
    pub fn parse(raw: u64) -> Result<Self, BadLimit> {
        u8::try_from(raw)
            .ok()
            .filter(|n| (1..=Self::MAX).contains(n))
            .map(Self)
            .ok_or(BadLimit)
    }

    #[must_use]
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

impl Default for PageLimit {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A position in a newest-first listing, opaque to clients (base64url of its fields).
pub trait Cursor: Sized {
    fn to_text(&self) -> String;
    fn from_text(text: &str) -> Option<Self>;

    #[must_use]
    fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.to_text())
    }

    /// # Errors
    /// [`BadCursor`] for anything [`Cursor::encode`] did not make.
    fn decode(raw: &str) -> Result<Self, BadCursor> {
        URL_SAFE_NO_PAD
            .decode(raw)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|text| Self::from_text(&text))
            .ok_or(BadCursor)
    }
}

/// Operations are ordered by when they were accepted, then by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationCursor {
    pub accepted_at: DateTime<Utc>,
    pub id: Uuid,
}

impl Cursor for OperationCursor {
    fn to_text(&self) -> String {
        format!(
            "o1.{}.{}",
            self.accepted_at.timestamp_micros(),
            self.id.simple()
        )
    }

    fn from_text(text: &str) -> Option<Self> {
        let mut parts = text.strip_prefix("o1.")?.split('.');
        let micros = parts.next()?.parse().ok()?;
        let id = Uuid::try_parse(parts.next()?).ok()?;
        parts.next().is_none().then_some(())?;
        Some(Self {
            accepted_at: from_micros(micros)?,
            id,
        })
    }
}

/// Audit rows are ordered by their id, which only grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditCursor(pub u64);

impl Cursor for AuditCursor {
    fn to_text(&self) -> String {
        format!("a1.{}", self.0)
    }

    fn from_text(text: &str) -> Option<Self> {
        let digits = text.strip_prefix("a1.")?;
        // One spelling per cursor: no sign, no leading zero.
        let canonical = !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
        canonical.then(|| digits.parse().ok().map(Self))?
    }
}

/// A page, and the cursor of the next one while more may follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T, C> {
    pub items: Vec<T>,
    pub next: Option<C>,
}

impl<T, C> Page<T, C> {
    /// `rows` holds up to `limit + 1` items: one more than shown tells that more follow.
    pub(crate) fn of(mut rows: Vec<T>, limit: PageLimit, cursor: impl Fn(&T) -> C) -> Self {
        let more = rows.len() > limit.get();
        rows.truncate(limit.get());
        let next = if more { rows.last().map(cursor) } else { None };
        Self { items: rows, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_1_to_100() {
        assert_eq!(PageLimit::parse(1).map(PageLimit::get), Ok(1));
        assert_eq!(PageLimit::parse(100).map(PageLimit::get), Ok(100));
        for bad in [0, 101, 256, u64::MAX] {
            assert_eq!(PageLimit::parse(bad), Err(BadLimit), "{bad}");
        }
        assert_eq!(PageLimit::default().get(), 50);
    }

    #[test]
    fn cursors_round_trip_and_anything_else_is_refused() {
        let operation = OperationCursor {
            accepted_at: from_micros(1_764_000_000_123_456).unwrap(),
            id: Uuid::from_u128(7),
        };
        assert_eq!(OperationCursor::decode(&operation.encode()), Ok(operation));
        let audit = AuditCursor(42);
        assert_eq!(AuditCursor::decode(&audit.encode()), Ok(audit));
        assert_eq!(OperationCursor::decode(&audit.encode()), Err(BadCursor));
        for bad in ["", "!!", "YTEuMDQy", "YTEuLTE", "bzEuMS4y"] {
            assert_eq!(AuditCursor::decode(bad), Err(BadCursor), "{bad}");
            assert_eq!(OperationCursor::decode(bad), Err(BadCursor), "{bad}");
        }
    }

    #[test]
    fn a_page_holds_at_most_its_limit_and_names_its_last_item_when_more_follow() {
        let limit = PageLimit::parse(2).unwrap();
        let full = Page::of(vec![3, 2, 1], limit, |n| AuditCursor(*n));
        assert_eq!((full.items, full.next), (vec![3, 2], Some(AuditCursor(2))));
        let last = Page::of(vec![1, 0], limit, |n| AuditCursor(*n));
        assert_eq!((last.items, last.next), (vec![1, 0], None));
    }
}
