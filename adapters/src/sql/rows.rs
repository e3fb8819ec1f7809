//! The idempotency record as read back, checked before it becomes the domain's.

use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use domain::{
    Completion, ExistingRecord, Fingerprint, FingerprintVersion, OrderId, RecordId, RecordState,
    StoredResponse, TenantId,
};

use super::bad_value::{OutOfRange, bad_row};
use super::schema::api_idempotency;

pub(crate) const PROCESSING: &str = "PROCESSING";
pub(crate) const COMPLETED: &str = "COMPLETED";

/// An operation's tenant, as stored.
pub(crate) fn stored_tenant(raw: i64) -> Result<TenantId, StoreError> {
    u64::try_from(raw)
        .ok()
        .and_then(|id| TenantId::parse(id).ok())
        .ok_or_else(|| bad_row("operations", "tenant"))
}

/// An operation's order, as stored.
pub(crate) fn stored_order(raw: i64) -> Result<OrderId, StoreError> {
    u64::try_from(raw)
        .ok()
        .filter(|id| *id > 0)
        .map(OrderId::new)
        .ok_or_else(|| bad_row("operations", "order"))
}

/// Cannot fail for ids the domain validated (`1..=i64::MAX`).
pub(crate) fn to_i64(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| OutOfRange("id").into())
}

pub(crate) fn fingerprint_version(version: FingerprintVersion) -> Result<i16, StoreError> {
    i16::try_from(version.0).map_err(|_| OutOfRange("fingerprint version").into())
}

/// The columns of [`RecordRow`], in its field order.
#[dsl::auto_type]
pub(crate) fn record_columns() -> _ {
    (
        api_idempotency::id,
        api_idempotency::fingerprint_version,
        api_idempotency::request_hash,
        api_idempotency::state,
        api_idempotency::response_status,
        api_idempotency::response_content_type,
        api_idempotency::response_location,
        api_idempotency::response_body,
        api_idempotency::completed_at,
        api_idempotency::expires_at,
    )
}

#[derive(Queryable)]
pub(crate) struct RecordRow {
    pub(crate) id: i64,
    pub(crate) fingerprint_version: i16,
    pub(crate) request_hash: Vec<u8>,
    pub(crate) state: String,
    pub(crate) response_status: Option<i16>,
    pub(crate) response_content_type: Option<String>,
    pub(crate) response_location: Option<String>,
    pub(crate) response_body: Option<Vec<u8>>,
    pub(crate) completed_at: Option<NaiveDateTime>,
    pub(crate) expires_at: Option<NaiveDateTime>,
}

fn corrupt(column: &'static str) -> StoreError {
    bad_row("api_idempotency", column)
}

impl RecordRow {
    /// Checks what the DDL cannot say (completed means a full response): a damaged row is
    /// an error, never a replay of something half-stored.
    pub(crate) fn into_record(self) -> Result<ExistingRecord, StoreError> {
        let hash: [u8; 32] = self
            .request_hash
            .as_slice()
            .try_into()
            .map_err(|_| corrupt("request hash length"))?;
        let version =
            u16::try_from(self.fingerprint_version).map_err(|_| corrupt("fingerprint version"))?;
        let id = RecordId(u64::try_from(self.id).map_err(|_| corrupt("id"))?);
        let state = match self.state.as_str() {
            PROCESSING => RecordState::Processing,
            COMPLETED => RecordState::Completed(self.into_completion()?),
            _ => return Err(corrupt("state")),
        };
        Ok(ExistingRecord {
            id,
            fingerprint: Fingerprint::from_parts(FingerprintVersion(version), hash),
            state,
        })
    }

    fn into_completion(self) -> Result<Completion, StoreError> {
        let (Some(status), Some(content_type), Some(body), Some(completed_at), Some(expires_at)) = (
            self.response_status,
            self.response_content_type,
            self.response_body,
            self.completed_at,
            self.expires_at,
        ) else {
            return Err(corrupt("completed without a full response"));
        };
        let status = u16::try_from(status).map_err(|_| corrupt("status"))?;
        let response = StoredResponse::new(status, content_type, self.response_location, body)
            .map_err(|_| corrupt("response"))?;
        Ok(Completion {
            response,
            completed_at: completed_at.and_utc(),
            expires_at: expires_at.and_utc(),
        })
    }
}
