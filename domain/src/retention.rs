//! How long a completed record answers retries.

use chrono::{DateTime, TimeDelta, Utc};

/// The window in which a retry is recognised as the same operation. After it, the orders
/// table's own `(tenant, clientOrderRef)` uniqueness still stops a second order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPolicy {
    retain: TimeDelta,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RetentionError {
    #[error("retention must be 1 second or more and fit date arithmetic")]
    OutOfRange,
}

impl Default for RetentionPolicy {
    /// One day (`docs/http-api.md#retention-and-purge`).
    fn default() -> Self {
        Self {
            retain: TimeDelta::seconds(86_400),
        }
    }
}

impl RetentionPolicy {
    /// Capped at 100 years so that date arithmetic cannot overflow.
    pub fn from_secs(secs: u64) -> Result<Self, RetentionError> {
        const HUNDRED_YEARS: u64 = 100 * 366 * 86_400;
        if secs == 0 || secs > HUNDRED_YEARS {
            return Err(RetentionError::OutOfRange);
        }
        i64::try_from(secs)
            .ok()
            .and_then(TimeDelta::try_seconds)
            .map(|retain| Self { retain })
            .ok_or(RetentionError::OutOfRange)
    }

    #[must_use]
    pub fn period(self) -> TimeDelta {
        self.retain
    }

    pub fn expires_at(self, completed_at: DateTime<Utc>) -> Result<DateTime<Utc>, RetentionError> {
        completed_at
            .checked_add_signed(self.retain)
            .ok_or(RetentionError::OutOfRange)
    }

    /// Expired at `now` itself, not only after it.
    #[must_use]
    pub fn is_expired(expires_at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        expires_at <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_retention_is_one_day() {
        let t = DateTime::UNIX_EPOCH;
        assert_eq!(
            RetentionPolicy::default().expires_at(t).unwrap() - t,
            TimeDelta::days(1)
        );
    }

    #[test]
    fn a_record_is_expired_from_its_expiry_instant_on() {
        let expiry = DateTime::UNIX_EPOCH + TimeDelta::seconds(10);
        assert!(!RetentionPolicy::is_expired(
            expiry,
            expiry - TimeDelta::microseconds(1)
        ));
        assert!(RetentionPolicy::is_expired(expiry, expiry));
    }

    #[test]
    fn zero_and_absurd_retentions_are_refused() {
        assert_eq!(
            RetentionPolicy::from_secs(0),
            Err(RetentionError::OutOfRange)
        );
        assert_eq!(
            RetentionPolicy::from_secs(u64::MAX),
            Err(RetentionError::OutOfRange)
        );
        assert!(RetentionPolicy::from_secs(60).is_ok());
    }

    #[test]
    fn expiry_overflow_is_an_error_not_a_panic() {
        let policy = RetentionPolicy::from_secs(86_400).unwrap();
        assert_eq!(
            policy.expires_at(DateTime::<Utc>::MAX_UTC),
            Err(RetentionError::OutOfRange)
        );
    }

    #[test]
    fn a_retention_of_up_to_a_hundred_years_of_366_days_is_accepted() {
        let hundred_years = 100 * 366 * 86_400;
        let policy = RetentionPolicy::from_secs(hundred_years).unwrap();
        let t = DateTime::UNIX_EPOCH;
        assert_eq!(
            policy.expires_at(t).unwrap() - t,
            TimeDelta::days(100 * 366)
        );
        assert_eq!(
            RetentionPolicy::from_secs(hundred_years + 1),
            Err(RetentionError::OutOfRange)
        );
    }

    #[test]
    fn the_period_is_the_configured_seconds() {
        let policy = RetentionPolicy::from_secs(3_600).unwrap();
        assert_eq!(policy.period(), TimeDelta::hours(1));
    }
}
