//! The admin use cases (`docs/admin.md`), one copy for the HTTP routes and the command line.

use chrono::{DateTime, TimeDelta, Utc};
use domain::{OperatorAction, Resolution};
use uuid::Uuid;

use super::page::{AuditCursor, OperationCursor, Page, PageLimit};
use super::ports::{AdminStore, ChangeOutcome, OperationChange, OperationFilter, Recording};
use super::refusal::AdminRefusal;
use super::scope::{AdminScope, Who};
use super::views::{
    AdminOperation, AuditEntry, AuditEvent, KeyAddress, KeyRecordView, KeyState, Target,
};
use crate::idempotency::ReplayCache;
use crate::leased::{EndedAs, LeasedKinds, StoredEnd};
use crate::ports::{Clock, StoreError, UnitOfWork};

/// How often a change is tried again when a worker or another operator changed the row
/// between the read and the write.
const CHANGE_TRIES: usize = 3;

/// Who asks, for which request, in which tenants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminRequest {
    pub scope: AdminScope,
    pub who: Who,
    pub request_id: String,
}

pub struct Admin<'a, S: UnitOfWork> {
    pub store: &'a S,
    /// The kinds this process serves: resolving an operation records its end as its kind does.
    pub kinds: &'a LeasedKinds<S::Tx>,
    pub clock: &'a dyn Clock,
    /// How long the provider keeps a key (`PROVIDER_KEY_RETENTION_SECS`).
    pub key_retention: TimeDelta,
    /// This process's copies of completed records; an eviction drops its key's at once.
    pub replay_cache: Option<&'a ReplayCache>,
}

impl<S: UnitOfWork> std::fmt::Debug for Admin<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("key_retention", &self.key_retention)
            .finish_non_exhaustive()
    }
}

impl<S: AdminStore> Admin<'_, S> {
    /// # Errors
    /// The store's.
    pub async fn list_operations(
        &self,
        scope: AdminScope,
        filter: &OperationFilter,
        after: Option<OperationCursor>,
        limit: PageLimit,
    ) -> Result<Page<AdminOperation, OperationCursor>, StoreError> {
        let rows = self
            .store
            .list_operations(scope, filter, after, limit.get() + 1)
            .await?;
        Ok(Page::of(rows, limit, AdminOperation::cursor))
    }

    /// # Errors
    /// [`AdminRefusal::NotFound`] outside `scope`.
    pub async fn show_operation(
        &self,
        scope: AdminScope,
        id: Uuid,
    ) -> Result<AdminOperation, AdminRefusal> {
        self.store
            .find_operation(scope, id)
            .await?
            .ok_or(AdminRefusal::NotFound)
    }

    /// Reads, judges, and writes only if the row is still as read; when it was not, judges
    /// the new row (a few times at most, then answers busy).
    ///
    /// # Errors
    /// Every [`AdminRefusal`] but `KeyState`; nothing is written for any.
    pub async fn act(
        &self,
        request: &AdminRequest,
        id: Uuid,
        action: &OperatorAction,
    ) -> Result<AdminOperation, AdminRefusal> {
        for _ in 0..CHANGE_TRIES {
            let seen = self.show_operation(request.scope, id).await?;
            let now = self.clock.now();
            self.judge(&seen, action, now)?;
            let change = OperationChange {
                id,
                order: (seen.tenant, seen.order),
                seen_state: seen.state,
                seen_generation: seen.generation,
                action,
                attempts: if *action == OperatorAction::Retry {
                    0
                } else {
                    seen.attempts
                },
                now,
            };
            let audit = AuditEntry {
                who: request.who.clone(),
                action: action.name(),
                target: Target {
                    kind: "operation",
                    id: id.hyphenated().to_string(),
                    tenant: seen.tenant,
                },
                before: seen.state.as_api(),
                after: action.ends_in().as_api(),
                request_id: request.request_id.clone(),
                at: now,
            };
            let recording = match action {
                OperatorAction::Resolve(resolution) => Some(Recording {
                    step: self
                        .kinds
                        .record(&seen.operation_type)
                        .ok_or(AdminRefusal::UnknownKind)?,
                    end: StoredEnd {
                        id,
                        tenant: seen.tenant,
                        order: seen.order,
                        input: seen.input.as_bytes(),
                        outcome: match resolution {
                            Resolution::Succeeded(provider_id) => EndedAs::Succeeded {
                                provider_id: provider_id.as_str(),
                            },
                            Resolution::Declined => EndedAs::Declined,
                        },
                        at: now,
                    },
                }),
                OperatorAction::Retry | OperatorAction::Cancel => None,
            };
            match self
                .store
                .change_operation(&change, &audit, recording)
                .await?
            {
                ChangeOutcome::Changed => return self.show_operation(request.scope, id).await,
                ChangeOutcome::Stale => {}
                ChangeOutcome::OrderNotActive => return Err(AdminRefusal::OrderNotActive),
                ChangeOutcome::Conflict => return Err(AdminRefusal::OperationConflict),
            }
        }
        Err(AdminRefusal::Busy {
            retry_after_secs: 1,
        })
    }

    /// Whether `action` would be accepted on `seen` now, by the very rule [`Self::act`]
    /// judges by: the on-call page offers only what this accepts
    /// (`docs/admin.md#the-on-call-page`).
    ///
    /// # Errors
    /// The refusal [`Self::act`] would answer before it writes.
    pub fn judge_now(
        &self,
        seen: &AdminOperation,
        action: &OperatorAction,
    ) -> Result<(), AdminRefusal> {
        self.judge(seen, action, self.clock.now())
    }

    fn judge(
        &self,
        seen: &AdminOperation,
        action: &OperatorAction,
        now: DateTime<Utc>,
    ) -> Result<(), AdminRefusal> {
        if seen.state != action.applies_to() {
            return Err(AdminRefusal::OperationState(seen.state));
        }
        if *action == OperatorAction::Retry && seen.accepted_at + self.key_retention <= now {
            return Err(AdminRefusal::KeyRetentionPassed);
        }
        if let Some(expiry) = seen.lease_expires_at.filter(|expiry| *expiry > now) {
            let left = u64::try_from((expiry - now).num_milliseconds()).unwrap_or(0);
            return Err(AdminRefusal::Busy {
                retry_after_secs: left.div_ceil(1000).max(1),
            });
        }
        Ok(())
    }

    /// # Errors
    /// [`AdminRefusal::NotFound`] for no record, or one outside `scope`.
    pub async fn show_key(
        &self,
        scope: AdminScope,
        address: &KeyAddress,
    ) -> Result<KeyRecordView, AdminRefusal> {
        if !scope.covers(address.tenant) {
            return Err(AdminRefusal::NotFound);
        }
        self.store
            .find_key(address)
            .await?
            .ok_or(AdminRefusal::NotFound)
    }

    /// Whether [`Self::evict_key`] would evict `seen`, by its own rule: the on-call page
    /// offers an eviction only when this accepts it (`docs/admin.md#the-on-call-page`).
    ///
    /// # Errors
    /// [`AdminRefusal::KeyState`] while its request runs, or
    /// [`AdminRefusal::OperationUnfinished`] while the operation it answered is pending or
    /// in review.
    pub async fn judge_eviction(
        &self,
        scope: AdminScope,
        seen: &KeyRecordView,
    ) -> Result<(), AdminRefusal> {
        if seen.state != KeyState::Completed {
            return Err(AdminRefusal::KeyState(seen.state));
        }
        // Settled operations never come back to work, so this read cannot go stale.
        if let Some(operation) = seen.operation {
            let found = self.store.find_operation(scope, operation).await?;
            if let Some(found) = found.filter(|found| !found.state.is_settled()) {
                return Err(AdminRefusal::OperationUnfinished {
                    operation,
                    state: found.state,
                });
            }
        }
        Ok(())
    }

    /// The client may use the key again afterwards.
    ///
    /// # Errors
    /// [`AdminRefusal::NotFound`], [`AdminRefusal::KeyState`] while its request runs, or
    /// [`AdminRefusal::OperationUnfinished`] while the operation it answered is pending or
    /// in review.
    pub async fn evict_key(
        &self,
        request: &AdminRequest,
        address: &KeyAddress,
    ) -> Result<KeyRecordView, AdminRefusal> {
        let seen = self.show_key(request.scope, address).await?;
        self.judge_eviction(request.scope, &seen).await?;
        let audit = AuditEntry {
            who: request.who.clone(),
            action: "idempotency_key.evict",
            target: Target {
                kind: "idempotency_key",
                id: address.target_id(),
                tenant: address.tenant,
            },
            before: KeyState::Completed.as_api(),
            after: "evicted",
            request_id: request.request_id.clone(),
            at: self.clock.now(),
        };
        if self.store.evict_key(address, &audit).await? {
            if let Some(cache) = self.replay_cache {
                cache.forget(&address.scope(), &address.key);
            }
            return Ok(seen);
        }
        // Gone since the read (purged, evicted), or gone and taken again by a new request.
        Err(match self.store.find_key(address).await? {
            Some(now) => AdminRefusal::KeyState(now.state),
            None => AdminRefusal::NotFound,
        })
    }

    /// # Errors
    /// The store's.
    pub async fn list_audit(
        &self,
        scope: AdminScope,
        after: Option<AuditCursor>,
        limit: PageLimit,
    ) -> Result<Page<AuditEvent, AuditCursor>, StoreError> {
        let rows = self.store.list_audit(scope, after, limit.get() + 1).await?;
        Ok(Page::of(rows, limit, AuditEvent::cursor))
    }
}
