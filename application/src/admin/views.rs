//! What an admin sees of an operation, an idempotency record and an audit row: everything
//! a person needs to decide, and never a stored response body.

use chrono::{DateTime, Utc};
use domain::{
    ActorId, AttemptError, Generation, IdempotencyKey, Operation, OperationState, OrderId, Scope,
    TenantId,
};
use uuid::Uuid;

use super::page::{AuditCursor, OperationCursor};
use super::scope::Who;
use crate::leased::Members;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminOperation {
    pub id: Uuid,
    pub operation_type: String,
    pub tenant: TenantId,
    pub order: OrderId,
    /// The kind's job as stored at acceptance (`{"amount":1500,"currency":"JPY"}`).
    pub input: Members,
    pub state: OperationState,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<DateTime<Utc>>,
    pub generation: Generation,
    pub downstream_key: String,
    /// `None` also for a class this version does not know.
    pub last_error: Option<AttemptError>,
    pub accepted_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The kind's result member, `null` until there is a result (`{"payment":null}`).
    pub result: Members,
    /// The trace id (32 lowercase hex digits) of the request that accepted it, so a person
    /// can find its attempts in the tracing backend; `None` when tracing was off then.
    pub trace_id: Option<String>,
}

impl AdminOperation {
    #[must_use]
    pub fn cursor(&self) -> OperationCursor {
        OperationCursor {
            accepted_at: self.accepted_at,
            id: self.id,
        }
    }

    /// Whether a worker holds it at `now`: its lease has not run out.
    #[must_use]
    pub fn leased_at(&self, now: DateTime<Utc>) -> bool {
        self.lease_expires_at.is_some_and(|expiry| expiry > now)
    }
}

/// Which idempotency record: the scope it lives in and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyAddress {
    pub tenant: TenantId,
    pub actor: ActorId,
    pub operation: Operation,
    pub key: IdempotencyKey,
}

impl KeyAddress {
    /// The space its key is unique in.
    #[must_use]
    pub fn scope(&self) -> Scope {
        Scope {
            tenant: self.tenant,
            actor: self.actor,
            operation: self.operation.clone(),
        }
    }

    /// As the audit trail names the record (the tenant is a column of its own).
    #[must_use]
    pub fn target_id(&self) -> String {
        format!(
            "{}/{}/{}",
            self.actor.get(),
            self.operation.as_str(),
            self.key.as_str()
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Its request is running: never evicted.
    Processing,
    Completed,
}

impl KeyState {
    #[must_use]
    pub fn as_api(self) -> &'static str {
        match self {
            Self::Processing => "processing",
            Self::Completed => "completed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecordView {
    pub address: KeyAddress,
    pub state: KeyState,
    pub fingerprint_version: u16,
    pub fingerprint: Vec<u8>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The status of the stored response, once completed.
    pub response_status: Option<u16>,
    /// The operation the stored answer points to (`Location: /api/operations/{id}`), for
    /// the key of a leased operation.
    pub operation: Option<Uuid>,
}

/// What a change was made to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: &'static str,
    pub id: String,
    pub tenant: TenantId,
}

/// One audit row as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub who: Who,
    pub action: &'static str,
    pub target: Target,
    pub before: &'static str,
    pub after: &'static str,
    pub request_id: String,
    pub at: DateTime<Utc>,
}

/// One audit row as read back: names are the stored text, whatever version wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEvent {
    pub id: u64,
    pub at: DateTime<Utc>,
    pub who: Who,
    pub action: String,
    pub target_kind: String,
    pub target_id: String,
    pub target_tenant: TenantId,
    pub before: String,
    pub after: String,
    pub request_id: String,
}

impl AuditEvent {
    #[must_use]
    pub fn cursor(&self) -> AuditCursor {
        AuditCursor(self.id)
    }
}
