//! One simulated transaction: every statement is a point the scheduler may interleave at
//! and a fault may strike, as a statement on a real connection is.

use std::collections::BTreeMap;
use std::sync::Arc;

use application::ports::{
    CommitError, InsertRecordError, NewRecord, RecordTx, StoreError, UnitOfWork,
};
use domain::{Completion, IdempotencyKey, RecordId, RecordState, Scope};

use super::World;
use super::db::{Claim, Db, LockKey, RecordKey, RecordRow, ShipmentRow, Writes};
use super::parked::Woken;
use crate::executor::interleave;

#[derive(Debug)]
pub(crate) struct SimTx {
    world: Arc<World>,
    id: u64,
    /// Committed, rolled back, or killed by a fault: nothing more reaches the server.
    ended: bool,
}

/// Why a connection is gone, as a driver would say.
#[derive(Debug, thiserror::Error)]
#[error("simulated connection lost")]
struct SimulatedLoss;

pub(crate) fn lost() -> StoreError {
    StoreError::ConnectionLost(Box::new(SimulatedLoss))
}

pub(crate) fn record_key(scope: &Scope, key: &IdempotencyKey) -> RecordKey {
    (
        scope.tenant.get(),
        scope.actor.get(),
        scope.operation.as_str().to_owned(),
        key.as_str().to_owned(),
    )
}

/// The database as every process's unit of work sees it.
#[derive(Debug, Clone)]
pub(crate) struct SimStore(pub(crate) Arc<World>);

impl UnitOfWork for SimStore {
    type Tx = SimTx;

    async fn begin(&self) -> Result<SimTx, StoreError> {
        interleave().await;
        if self.0.fails(|f| f.begin_fails) {
            return Err(lost());
        }
        let id = self.0.db().begin();
        Ok(SimTx {
            world: Arc::clone(&self.0),
            id,
            ended: false,
        })
    }
}

impl SimTx {
    /// Ends the transaction without its writes and wakes whoever waits on its keys.
    fn abort(&mut self) {
        if !self.ended {
            self.ended = true;
            self.world.db().end(self.id, false);
            self.world.parked().release(self.id);
        }
    }

    /// Applies `change` to this transaction's uncommitted writes.
    pub(super) fn write(&self, change: impl FnOnce(&mut Writes)) {
        if let Some(writes) = self.world.db().writes(self.id) {
            change(writes);
        }
    }

    pub(super) fn world(&self) -> &World {
        &self.world
    }

    /// An order's row of a table kept by order id, as this transaction sees it: its own
    /// write, else the committed one.
    fn order_row<T: Copy>(
        &self,
        order: u64,
        own: fn(&Writes) -> &BTreeMap<u64, T>,
        committed: fn(&Db) -> &BTreeMap<u64, T>,
    ) -> Option<T> {
        let mut db = self.world.db();
        let written = db
            .writes(self.id)
            .and_then(|writes| own(writes).get(&order).copied());
        written.or_else(|| committed(&db).get(&order).copied())
    }

    /// An order's revision as this transaction sees it (1 for an order never raised).
    pub(super) fn revision(&self, order: u64) -> u64 {
        self.order_row(order, |w| &w.revisions, |db| &db.revisions)
            .unwrap_or(1)
    }

    /// What the order's capture has reserved for refunds, as this transaction sees it.
    pub(super) fn refunded(&self, order: u64) -> u32 {
        self.order_row(order, |w| &w.refunded, |db| &db.refunded)
            .unwrap_or(0)
    }

    /// When the order was cancelled, as this transaction sees it.
    pub(super) fn cancelled_at(&self, order: u64) -> Option<chrono::DateTime<chrono::Utc>> {
        self.order_row(order, |w| &w.cancellations, |db| &db.cancellations)
    }

    /// Takes operation `id`'s row lock, as the end's transaction does first.
    pub(super) async fn lock_operation(&mut self, id: uuid::Uuid) -> Result<(), StoreError> {
        self.statement().await?;
        self.lock_row(&LockKey::Operation(id)).await
    }

    /// Stages `row` as the operation's end, committed with the transaction.
    pub(super) fn stage_operation(&self, id: uuid::Uuid, row: super::db::OperationRow) {
        self.write(|writes| {
            writes.operations.insert(id, row);
        });
    }

    /// A shipment as this transaction sees it: its own write, else the committed row.
    pub(super) fn shipment(&self, order: u64) -> Option<ShipmentRow> {
        let mut db = self.world.db();
        let own = db
            .writes(self.id)
            .and_then(|writes| writes.shipments.get(&order).copied());
        own.or_else(|| db.shipments.get(&order).copied())
    }

    /// Before every statement: the scheduler's turn, then the faults a statement meets.
    pub(super) async fn statement(&mut self) -> Result<(), StoreError> {
        interleave().await;
        if self.ended {
            return Err(lost());
        }
        if self.world.fails(|f| f.connection_lost) {
            self.abort();
            return Err(lost());
        }
        if self.world.fails(|f| f.timeout) {
            self.abort();
            return Err(StoreError::Timeout);
        }
        if self.world.fails(|f| f.deadlock) {
            self.world.deadlock_struck();
            self.abort();
            return Err(StoreError::Deadlock);
        }
        Ok(())
    }

    /// Holds `key` for this transaction; false when it is taken. Waits while another
    /// open transaction holds it, until that one ends or the wait times out.
    pub(super) async fn claim(&mut self, key: &LockKey) -> Result<bool, StoreError> {
        self.wait_for(key, |db, tx, key| db.claim(tx, key)).await
    }

    /// Takes `key`'s row lock for an update, waiting as [`SimTx::claim`] does.
    pub(super) async fn lock_row(&mut self, key: &LockKey) -> Result<(), StoreError> {
        self.wait_for(key, |db, tx, key| db.lock_row(tx, key))
            .await?;
        Ok(())
    }

    async fn wait_for(
        &mut self,
        key: &LockKey,
        attempt: impl Fn(&mut Db, u64, LockKey) -> Claim,
    ) -> Result<bool, StoreError> {
        loop {
            let claim = attempt(&mut self.world.db(), self.id, key.clone());
            match claim {
                Claim::Free => return Ok(true),
                Claim::Taken => return Ok(false),
                Claim::Deadlock => {
                    self.world.deadlock_struck();
                    self.abort();
                    return Err(StoreError::Deadlock);
                }
                Claim::WaitOn(holder) => {
                    if self.world.parked().wait(Some(holder)).await == Woken::Fired {
                        // MySQL 1205: the statement fails, the transaction stays open.
                        self.world.db().stop_waiting(self.id);
                        return Err(StoreError::LockWaitTimeout);
                    }
                }
            }
        }
    }
}

impl Drop for SimTx {
    /// A connection dropped mid-transaction: the server rolls it back.
    fn drop(&mut self) {
        self.abort();
    }
}

impl RecordTx for SimTx {
    async fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> Result<RecordId, InsertRecordError> {
        self.statement().await?;
        let key = record_key(&record.scope, &record.key);
        if !self.claim(&LockKey::Record(key.clone())).await? {
            return Err(InsertRecordError::KeyAlreadyRegistered);
        }
        let mut db = self.world.db();
        let id = db.next_id();
        if let Some(writes) = db.writes(self.id) {
            writes.records.insert(
                key,
                RecordRow {
                    id,
                    fingerprint: record.fingerprint,
                    state: RecordState::Processing,
                },
            );
        }
        Ok(RecordId(id))
    }

    async fn savepoint(&mut self) -> Result<(), StoreError> {
        self.statement().await?;
        if let Some(state) = self.world.db().txs.get_mut(&self.id) {
            state.savepoint = Some(state.writes.clone());
        }
        Ok(())
    }

    async fn rollback_to_savepoint(&mut self) -> Result<(), StoreError> {
        self.statement().await?;
        if let Some(state) = self.world.db().txs.get_mut(&self.id)
            && let Some(saved) = state.savepoint.take()
        {
            state.writes = saved;
        }
        Ok(())
    }

    async fn complete(&mut self, id: RecordId, completion: &Completion) -> Result<u64, StoreError> {
        self.statement().await?;
        Ok(self.world.db().complete(self.id, id.0, completion))
    }

    async fn commit(mut self) -> Result<(), CommitError> {
        interleave().await;
        let unknown = || CommitError::CommitOutcomeUnknown(Box::new(SimulatedLoss));
        if self.ended {
            return Err(unknown());
        }
        if self.world.fails(|f| f.commit_rolled_back) {
            self.world.deadlock_struck();
            self.abort();
            return Err(CommitError::RolledBack);
        }
        if self.world.fails(|f| f.commit_lost_before) {
            self.abort();
            return Err(unknown());
        }
        self.ended = true;
        self.world.db().end(self.id, true);
        self.world.parked().release(self.id);
        let answer_lost = self.world.fails(|f| f.commit_lost_after);
        // Committed: a crash from here on loses only the answer.
        interleave().await;
        if answer_lost { Err(unknown()) } else { Ok(()) }
    }

    async fn rollback(mut self) -> Result<(), StoreError> {
        interleave().await;
        self.abort();
        Ok(())
    }
}
