//! A transaction for mocked stores that run their transactions themselves: never begun, so
//! every method fails. Shared by the test binaries whose stores are mocked whole.

use application::events::{NewEvent, OrderRevisions, OutboxWriter};
use application::leased::Ended;
use application::payments::{CaptureJob, PaymentRecords};
use application::ports::{CommitError, InsertRecordError, NewRecord, RecordTx, StoreError};
use domain::{Completion, OrderId, RecordId, TenantId};

#[derive(Debug)]
pub(crate) struct NoTx;

impl RecordTx for NoTx {
    async fn insert_processing(&mut self, _: &NewRecord) -> Result<RecordId, InsertRecordError> {
        Err(InsertRecordError::Store(unused()))
    }

    async fn savepoint(&mut self) -> Result<(), StoreError> {
        Err(unused())
    }

    async fn rollback_to_savepoint(&mut self) -> Result<(), StoreError> {
        Err(unused())
    }

    async fn complete(&mut self, _: RecordId, _: &Completion) -> Result<u64, StoreError> {
        Err(unused())
    }

    async fn commit(self) -> Result<(), CommitError> {
        Err(CommitError::RolledBack)
    }

    async fn rollback(self) -> Result<(), StoreError> {
        Err(unused())
    }
}

impl PaymentRecords for NoTx {
    async fn insert_payment(
        &mut self,
        _: &Ended<'_, CaptureJob>,
        _: &str,
    ) -> Result<u64, StoreError> {
        Err(unused())
    }
}

impl OrderRevisions for NoTx {
    async fn next_order_revision(&mut self, _: TenantId, _: OrderId) -> Result<u64, StoreError> {
        Err(unused())
    }
}

impl OutboxWriter for NoTx {
    async fn add_event(&mut self, _: &NewEvent) -> Result<(), StoreError> {
        Err(unused())
    }
}

fn unused() -> StoreError {
    StoreError::Other("a mocked store runs no transaction".into())
}
