//! The leased operations' table as the worker sees it: single conditional updates for
//! the claim, the extension and the retry (each waiting on a transaction that holds the
//! row), and the end in one transaction with the kind's record step. The fence is the
//! one the SQL stores write (`adapters/src/leased/fenced.rs`): a write lands only for the
//! generation the row is at, while it is pending; here it is the domain's statement of
//! it, `Lease::fences`. Every write that lands is logged with the generation it was made
//! under and the row's, for the invariant that no stale write lands.

use application::leased::{
    DueOperation, Ending, OperationEnd, OperationStore, RecordEnd, StoredEnd,
};
use application::ports::{RecordTx, StoreError, UnitOfWork};
use chrono::{DateTime, Utc};
use domain::{AttemptError, Generation, Lease, LeaseView, OperationState};
use uuid::Uuid;

use super::db::{LockKey, OperationRow};
use super::parked::Woken;
use super::tx::{SimStore, SimTx, lost};
use crate::executor::interleave;

impl SimStore {
    /// One autocommit `UPDATE` of operation `id`: a fault may strike, a transaction that
    /// holds the row makes it wait, then `change` decides on the committed row.
    async fn update(
        &self,
        id: Uuid,
        change: impl Fn(&mut OperationRow) -> bool,
    ) -> Result<bool, StoreError> {
        interleave().await;
        if self.0.fails(|f| f.connection_lost) {
            return Err(lost());
        }
        loop {
            let holder = self.0.db().holder(&LockKey::Operation(id));
            match holder {
                Some(tx) => {
                    if self.0.parked().wait(Some(tx)).await == Woken::Fired {
                        return Err(StoreError::LockWaitTimeout);
                    }
                }
                None => {
                    let mut db = self.0.db();
                    return Ok(db.operations.get_mut(&id).is_some_and(change));
                }
            }
        }
    }
}

impl SimStore {
    /// `end` in `tx` under its fence, with the kind's record of a definite end; `false`,
    /// with nothing staged, when the fence refused it.
    async fn end_in(
        &self,
        tx: &mut SimTx,
        end: &OperationEnd<'_>,
        record: &dyn RecordEnd<SimTx>,
    ) -> Result<bool, StoreError> {
        let id = end.operation.id;
        tx.lock_operation(id).await?;
        let Some(row) = self.0.db().operations.get(&id).cloned() else {
            return Ok(false);
        };
        if !fenced(&row, end.lease) {
            return Ok(false);
        }
        let mut landed = row.clone();
        landed.land(end.lease);
        let ended = OperationRow {
            landed: landed.landed,
            state: end.ending.state(),
            attempts: end.attempts,
            holder: None,
            last_error: match end.ending {
                Ending::NeedsReview(error) => Some(*error),
                _ => row.last_error,
            },
            ..row.clone()
        };
        tx.stage_operation(id, ended);
        if let Some(outcome) = end.ending.recorded_as() {
            let stored = StoredEnd {
                id,
                tenant: row.tenant,
                order: row.order,
                input: &row.input,
                outcome,
                at: end.now,
            };
            record.record(tx, stored).await?;
        }
        Ok(true)
    }
}

/// Pending at `generation`: what a claim that saw that generation may take.
fn claimable(row: &OperationRow, generation: Generation) -> bool {
    row.state == OperationState::Pending && row.generation == generation
}

/// What `lease`'s holder may still write: the row pending, and the lease fencing its
/// generation.
fn fenced(row: &OperationRow, lease: &Lease) -> bool {
    row.state == OperationState::Pending && lease.fences(row.generation)
}

impl OperationStore for SimStore {
    async fn due(
        &self,
        kinds: &[&'static str],
        limit: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<DueOperation>, StoreError> {
        interleave().await;
        if self.0.fails(|f| f.connection_lost) {
            return Err(lost());
        }
        let db = self.0.db();
        Ok(db
            .operations
            .iter()
            .filter(|(_, row)| {
                row.state == OperationState::Pending
                    && kinds.contains(&row.kind)
                    && row.next_attempt_at <= now
                    && row.holder.as_ref().is_none_or(|(_, until)| *until <= now)
            })
            .take(limit)
            .map(|(id, row)| DueOperation {
                id: *id,
                kind: row.kind.to_owned(),
                tenant: row.tenant,
                order: row.order,
                input: row.input.clone(),
                downstream_key: row.downstream_key.clone(),
                attempts: row.attempts,
                accepted_at: row.accepted_at,
                lease: LeaseView {
                    generation: row.generation,
                    holder: row.holder.clone(),
                },
                trace_context: None,
            })
            .collect())
    }

    async fn claim(
        &self,
        id: Uuid,
        seen: Generation,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.update(id, |row| {
            let free = row.holder.as_ref().is_none_or(|(_, until)| *until <= now);
            if claimable(row, seen) && free {
                row.generation = lease.generation;
                row.holder = Some((lease.owner.clone(), lease.expires_at));
                row.claimed_by = Some(lease.owner.clone());
                true
            } else {
                false
            }
        })
        .await
    }

    async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
        self.update(id, |row| {
            if fenced(row, lease) {
                row.land(lease);
                row.holder = Some((lease.owner.clone(), lease.expires_at));
                true
            } else {
                false
            }
        })
        .await
    }

    async fn complete(
        &self,
        end: &OperationEnd<'_>,
        record: &dyn RecordEnd<Self::Tx>,
    ) -> Result<bool, StoreError> {
        let ended = self.complete_all(std::slice::from_ref(end), record).await?;
        Ok(ended.first().copied().unwrap_or(false))
    }

    async fn complete_all(
        &self,
        ends: &[OperationEnd<'_>],
        record: &dyn RecordEnd<Self::Tx>,
    ) -> Result<Vec<bool>, StoreError> {
        let mut tx = self.begin().await?;
        let mut ended = Vec::with_capacity(ends.len());
        for end in ends {
            ended.push(self.end_in(&mut tx, end, record).await?);
        }
        if ended.contains(&true) {
            tx.commit().await.map_err(StoreError::from)?;
        } else {
            tx.rollback().await?;
        }
        Ok(ended)
    }

    async fn retry_later(
        &self,
        id: Uuid,
        lease: &Lease,
        attempts: u32,
        error: AttemptError,
        next_attempt_at: DateTime<Utc>,
        _now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.update(id, |row| {
            if fenced(row, lease) {
                row.land(lease);
                row.attempts = attempts;
                row.last_error = Some(error);
                row.next_attempt_at = next_attempt_at;
                row.holder = None;
                true
            } else {
                false
            }
        })
        .await
    }
}
