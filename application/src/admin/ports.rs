//! The admin's store: reads across the operation, record and audit tables, and writes that
//! change one row under the same conditions a worker's fence uses, with their audit row in
//! the same transaction.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{Generation, OperationState, OperatorAction, OrderId, TenantId};
use uuid::Uuid;

use super::page::{AuditCursor, OperationCursor};
use super::scope::AdminScope;
use super::views::{AdminOperation, AuditEntry, AuditEvent, KeyAddress, KeyRecordView};
use crate::leased::{RecordEnd, StoredEnd};
use crate::ports::{StoreError, UnitOfWork};

/// Every field narrows the list; `None` leaves it open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationFilter {
    pub state: Option<OperationState>,
    pub operation_type: Option<String>,
    pub tenant: Option<TenantId>,
    pub accepted_before: Option<DateTime<Utc>>,
    pub accepted_after: Option<DateTime<Utc>>,
}

/// An operator's change to an operation, made only if the row is still in `seen_state`
/// at `seen_generation` and no lease is live at `now`; it bumps the generation, so a worker
/// holding the old one can write nothing afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationChange<'a> {
    pub id: Uuid,
    /// The operation's order, as its tenant's.
    pub order: (TenantId, OrderId),
    pub seen_state: OperationState,
    pub seen_generation: Generation,
    pub action: &'a OperatorAction,
    /// What the row keeps: 0 for a retry (it starts over), else as seen.
    pub attempts: u32,
    pub now: DateTime<Utc>,
}

impl OperationChange<'_> {
    /// Whether the change resumes the work or ends it done: then the order must still take
    /// work, judged in the change's transaction (a cancelled order is charged by nobody).
    #[must_use]
    pub fn takes_order(&self) -> bool {
        matches!(
            self.action.ends_in(),
            OperationState::Pending | OperationState::Succeeded
        )
    }
}

/// What an operator's change came to; nothing is written but for `Changed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeOutcome {
    Changed,
    /// The row is no longer in the state and at the generation seen.
    Stale,
    /// The order is cancelled (or gone): it takes no more work.
    OrderNotActive,
    /// Another operation of the order holds what this one would take (the order's one
    /// pending or succeeded capture).
    Conflict,
}

/// A resolution's end as the operation's kind records it, in the change's transaction.
pub struct Recording<'a, Tx> {
    pub step: &'a dyn RecordEnd<Tx>,
    pub end: StoredEnd<'a>,
}

impl<Tx> std::fmt::Debug for Recording<'_, Tx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

pub trait AdminStore: UnitOfWork + Send + Sync {
    /// Newest first, after `after`, at most `limit` rows (the use case asks for one more).
    fn list_operations(
        &self,
        scope: AdminScope,
        filter: &OperationFilter,
        after: Option<OperationCursor>,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<AdminOperation>, StoreError>> + Send;

    /// `None` also for an operation outside `scope`.
    fn find_operation(
        &self,
        scope: AdminScope,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<AdminOperation>, StoreError>> + Send;

    /// One transaction: the order taken when the change [takes it](OperationChange::takes_order),
    /// the conditional change, the kind's record of a resolution (its payment, say) with the
    /// result it shows, the audit row. Anything but `Changed` wrote nothing.
    fn change_operation(
        &self,
        change: &OperationChange<'_>,
        audit: &AuditEntry,
        recording: Option<Recording<'_, Self::Tx>>,
    ) -> impl Future<Output = Result<ChangeOutcome, StoreError>> + Send;

    fn find_key(
        &self,
        address: &KeyAddress,
    ) -> impl Future<Output = Result<Option<KeyRecordView>, StoreError>> + Send;

    /// Deletes the record only if completed, with the audit row in the same transaction.
    /// `false`: no completed record and nothing was written.
    fn evict_key(
        &self,
        address: &KeyAddress,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Newest first, after `after`, at most `limit` rows.
    fn list_audit(
        &self,
        scope: AdminScope,
        after: Option<AuditCursor>,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<AuditEvent>, StoreError>> + Send;
}
