//! The idempotency record's life, and what a record found under a key means for a request.

use chrono::{DateTime, Utc};

use crate::{Fingerprint, RetentionError, RetentionPolicy};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordId(pub u64);

/// Replayed byte for byte; only `Content-Type` and `Location` are kept, nothing per connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    status: u16,
    content_type: String,
    location: Option<String>,
    body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StoredResponseError {
    #[error("status must be 100..=599")]
    Status,
    #[error("content type must have 1..=128 bytes")]
    ContentType,
    #[error("location must have at most 512 bytes")]
    Location,
    #[error("body must be smaller than 16 MiB")]
    Body,
}

impl StoredResponse {
    pub const MAX_CONTENT_TYPE: usize = 128;
    pub const MAX_LOCATION: usize = 512;
    /// `MEDIUMBLOB` holds less than 16 MiB.
    pub const MAX_BODY: usize = (1 << 24) - 1;

    /// Checks each part against its column, so nothing is ever truncated.
    pub fn new(
        status: u16,
        content_type: String,
        location: Option<String>,
        body: Vec<u8>,
    ) -> Result<Self, StoredResponseError> {
        if !(100..=599).contains(&status) {
            return Err(StoredResponseError::Status);
        }
        if content_type.is_empty() || content_type.len() > Self::MAX_CONTENT_TYPE {
            return Err(StoredResponseError::ContentType);
        }
        if location
            .as_ref()
            .is_some_and(|l| l.len() > Self::MAX_LOCATION)
        {
            return Err(StoredResponseError::Location);
        }
        if body.len() > Self::MAX_BODY {
            return Err(StoredResponseError::Body);
        }
        Ok(Self {
            status,
            content_type,
            location,
            body,
        })
    }

    #[must_use]
    pub fn status(&self) -> u16 {
        self.status
    }
    #[must_use]
    pub fn content_type(&self) -> &str {
        &self.content_type
    }
    #[must_use]
    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }
    #[must_use]
    pub fn body(&self) -> &[u8] {
        &self.body
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub response: StoredResponse,
    pub completed_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

impl Completion {
    pub fn new(
        response: StoredResponse,
        completed_at: DateTime<Utc>,
        policy: RetentionPolicy,
    ) -> Result<Self, RetentionError> {
        Ok(Self {
            response,
            expires_at: policy.expires_at(completed_at)?,
            completed_at,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordState {
    /// Inserted by a transaction that has not finished (or, read back, one that is running).
    Processing,
    /// The operation committed together with this completion.
    Completed(Completion),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    #[error("the record is already completed")]
    AlreadyCompleted,
}

impl RecordState {
    pub fn complete(self, completion: Completion) -> Result<Self, TransitionError> {
        match self {
            Self::Processing => Ok(Self::Completed(completion)),
            Self::Completed(_) => Err(TransitionError::AlreadyCompleted),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingRecord {
    pub id: RecordId,
    pub fingerprint: Fingerprint,
    pub state: RecordState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Same request, completed: return the stored response unchanged.
    Replay(StoredResponse),
    /// The key was first used with another request: nothing may run.
    KeyReused,
    /// Same request, still being processed elsewhere: come back later, same key.
    InProgress,
}

/// The fingerprint is compared first, so a different request under a used key is refused
/// in any state. Another rule version cannot be shown to mean the same request.
#[must_use]
pub fn decide(existing: &ExistingRecord, incoming: &Fingerprint) -> Decision {
    if existing.fingerprint != *incoming {
        return Decision::KeyReused;
    }
    match &existing.state {
        RecordState::Processing => Decision::InProgress,
        RecordState::Completed(completion) => Decision::Replay(completion.response.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FingerprintVersion;

    fn fp(byte: u8) -> Fingerprint {
        Fingerprint::from_parts(FingerprintVersion(1), [byte; 32])
    }

    fn response() -> StoredResponse {
        StoredResponse::new(
            201,
            "application/json".into(),
            Some("/api/orders/1".into()),
            b"{}".to_vec(),
        )
        .unwrap()
    }

    fn completion() -> Completion {
        Completion::new(response(), DateTime::UNIX_EPOCH, RetentionPolicy::default()).unwrap()
    }

    fn completed() -> RecordState {
        RecordState::Processing.complete(completion()).unwrap()
    }

    fn record(fingerprint: Fingerprint, state: RecordState) -> ExistingRecord {
        ExistingRecord {
            id: RecordId(7),
            fingerprint,
            state,
        }
    }

    #[test]
    fn a_completed_record_with_the_same_fingerprint_is_replayed_unchanged() {
        let decision = decide(&record(fp(1), completed()), &fp(1));
        assert_eq!(decision, Decision::Replay(response()));
    }

    #[test]
    fn a_different_fingerprint_is_key_reuse_whatever_the_state() {
        assert_eq!(
            decide(&record(fp(1), completed()), &fp(2)),
            Decision::KeyReused
        );
        assert_eq!(
            decide(&record(fp(1), RecordState::Processing), &fp(2)),
            Decision::KeyReused
        );
    }

    #[test]
    fn another_rule_version_counts_as_another_request() {
        let old = Fingerprint::from_parts(FingerprintVersion(1), [1; 32]);
        let new = Fingerprint::from_parts(FingerprintVersion(2), [1; 32]);
        assert_eq!(decide(&record(old, completed()), &new), Decision::KeyReused);
    }

    #[test]
    fn a_processing_record_with_the_same_fingerprint_is_in_progress() {
        assert_eq!(
            decide(&record(fp(1), RecordState::Processing), &fp(1)),
            Decision::InProgress
        );
    }

    #[test]
    fn completing_sets_the_expiry_from_the_completion_time() {
        let c = completion();
        assert_eq!(
            c.expires_at - c.completed_at,
            chrono::TimeDelta::seconds(86_400)
        );
    }

    #[test]
    fn a_completed_record_cannot_be_completed_again() {
        let again = completed().complete(completion());
        assert_eq!(again, Err(TransitionError::AlreadyCompleted));
    }

    #[test]
    fn responses_that_a_column_would_cut_are_refused() {
        let long = "x".repeat(StoredResponse::MAX_LOCATION + 1);
        assert_eq!(
            StoredResponse::new(201, "a/b".into(), Some(long), vec![]),
            Err(StoredResponseError::Location)
        );
        assert_eq!(
            StoredResponse::new(201, String::new(), None, vec![]),
            Err(StoredResponseError::ContentType)
        );
        assert_eq!(
            StoredResponse::new(99, "a/b".into(), None, vec![]),
            Err(StoredResponseError::Status)
        );
    }

    #[test]
    fn a_stored_response_gives_back_each_part_as_given() {
        let response = StoredResponse::new(
            409,
            "application/problem+json".into(),
            Some("/api/orders/3".into()),
            b"{\"a\":1}".to_vec(),
        )
        .unwrap();
        assert_eq!(response.status(), 409);
        assert_eq!(response.content_type(), "application/problem+json");
        assert_eq!(response.location(), Some("/api/orders/3"));
        assert_eq!(response.body(), b"{\"a\":1}");
        let without_location = StoredResponse::new(200, "text/plain".into(), None, vec![]).unwrap();
        assert_eq!(without_location.location(), None);
        assert_eq!(without_location.body(), b"");
    }

    #[test]
    fn a_body_must_be_smaller_than_16_mib() {
        let largest = vec![b'x'; (1 << 24) - 1];
        assert!(StoredResponse::new(200, "a/b".into(), None, largest).is_ok());
        assert_eq!(
            StoredResponse::new(200, "a/b".into(), None, vec![b'x'; 1 << 24]),
            Err(StoredResponseError::Body)
        );
    }
}
