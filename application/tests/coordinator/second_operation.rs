//! A toy second operation, to show what adding one takes: a validated input with its
//! fingerprint fields, a repository trait for its writes, and the business step. Key
//! scoping, concurrency, replay and outcomes come from the coordinator unchanged.

use std::future::Future;

use application::ports::{CommitError, InsertRecordError, NewRecord, RecordTx, StoreError};
use application::{IdempotentOperation, Outcome, StepContext, StepError};
use domain::{
    Completion, FingerprintVersion, Fingerprinted, Operation, RecordId, StoredResponse, TenantId,
};
use mockall::mock;

use crate::support::*;

/// 1. The validated input.
#[derive(Debug)]
struct NewNote {
    text: String,
}

impl Fingerprinted for NewNote {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    fn fingerprint_fields(&self) -> Vec<String> {
        vec![self.text.clone()]
    }
}

/// 2. The writes it needs, implemented by the adapter's transaction.
trait NoteRepository {
    fn insert_note(
        &mut self,
        tenant: TenantId,
        text: &str,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

/// 3. The business step.
struct AddNote {
    operation: Operation,
}

impl<Tx: NoteRepository + Send> IdempotentOperation<Tx> for AddNote {
    type Input = NewNote;

    fn operation(&self) -> &Operation {
        &self.operation
    }

    fn required_permission(&self) -> &str {
        "notes:write"
    }

    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &NewNote,
    ) -> Result<StoredResponse, StepError> {
        let id = tx.insert_note(context.tenant, &input.text).await?;
        StoredResponse::new(201, "text/plain".into(), None, id.to_string().into_bytes())
            .map_err(|e| StepError::Internal(e.to_string()))
    }
}

mock! {
    NoteTx {}
    impl RecordTx for NoteTx {
        fn insert_processing(
            &mut self,
            record: &NewRecord,
        ) -> impl Future<Output = Result<RecordId, InsertRecordError>> + Send;
        fn complete(
            &mut self,
            id: RecordId,
            completion: &Completion,
        ) -> impl Future<Output = Result<u64, StoreError>> + Send;
        fn commit(self) -> impl Future<Output = Result<(), CommitError>> + Send;
        fn rollback(self) -> impl Future<Output = Result<(), StoreError>> + Send;
    }
    impl NoteRepository for NoteTx {
        fn insert_note(
            &mut self,
            tenant: TenantId,
            text: &str,
        ) -> impl Future<Output = Result<u64, StoreError>> + Send;
    }
}

#[tokio::test]
async fn a_second_operation_runs_through_the_same_coordinator_in_its_own_scope() {
    let mut tx = MockNoteTx::new();
    tx.expect_insert_processing()
        .withf(|record| record.scope.operation.as_str() == "notes.add.v1")
        .times(1)
        .returning(|_| ready(Ok(RecordId(1))));
    tx.expect_insert_note()
        .withf(|_, text| text == "hello")
        .times(1)
        .returning(|_, _| ready(Ok(77)));
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    let op = AddNote {
        operation: Operation::parse("notes.add.v1").unwrap(),
    };

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding_nothing())
        .run(
            &op,
            &caller(),
            &key(),
            &NewNote {
                text: "hello".into(),
            },
        )
        .await;

    let Outcome::Executed { response, .. } = outcome else {
        panic!("expected Executed, got {outcome:?}");
    };
    assert_eq!(response.body(), b"77");
}
