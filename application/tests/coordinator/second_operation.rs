//! A toy operation written the way `docs/adding-an-operation.md` says: a validated
//! input with its fingerprint fields, its own refusal, a port for its writes, and the
//! business step, all in this file. Key scoping, concurrency, replay and outcomes come
//! from the coordinator, which needed no edit for it.

use std::future::Future;

use application::ports::{CommitError, InsertRecordError, NewRecord, RecordTx, StoreError};
use application::{
    Answer, Execute, IdempotentOperation, Outcome, Refusal, StepContext, StepError, answer,
};
use domain::{Completion, FingerprintVersion, Fingerprinted, RecordId, StoredResponse, TenantId};
use mockall::mock;

use crate::support::*;

/// 1. The validated input.
#[derive(Debug, Clone)]
struct NewNote {
    text: String,
}

impl Fingerprinted for NewNote {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    fn fingerprint_fields(&self) -> Vec<String> {
        vec![self.text.clone()]
    }
}

/// 2. Its own refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NoteRefusal {
    NotebookFull,
}

impl Refusal for NoteRefusal {
    const ALL: &'static [Self] = &[Self::NotebookFull];

    fn code(self) -> &'static str {
        match self {
            Self::NotebookFull => "notebook_full",
        }
    }
}

/// 3. The writes it needs, implemented by the adapter's transaction.
trait NoteRepository {
    fn insert_note(
        &mut self,
        tenant: TenantId,
        text: &str,
    ) -> impl Future<Output = Result<u64, StepError<NoteRefusal>>> + Send;
}

/// 4. The operation and its business step.
struct AddNote;

impl IdempotentOperation for AddNote {
    const NAME: &'static str = "notes.add.v1";
    const PERMISSION: &'static str = "notes:write";
    type Input = NewNote;
    type Refusal = NoteRefusal;
    type Reserved = ();
}

impl<Tx: NoteRepository + Send> Execute<Tx> for AddNote {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &NewNote,
    ) -> Result<StoredResponse, StepError<NoteRefusal>> {
        let id = tx.insert_note(context.tenant, &input.text).await?;
        answer(Answer::Done, id.to_string().into_bytes())
    }
}

mock! {
    NoteTx {}
    impl RecordTx for NoteTx {
        fn insert_processing(
            &mut self,
            record: &NewRecord,
        ) -> impl Future<Output = Result<RecordId, InsertRecordError>> + Send;
        fn savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;
        fn rollback_to_savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;
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
        ) -> impl Future<Output = Result<u64, StepError<NoteRefusal>>> + Send;
    }
}

fn note_tx(answer: fn() -> Result<u64, StepError<NoteRefusal>>) -> MockNoteTx {
    let mut tx = MockNoteTx::new();
    tx.expect_insert_processing()
        .withf(|record| record.scope.operation.as_str() == "notes.add.v1")
        .times(1)
        .returning(|_| ready(Ok(RecordId(1))));
    tx.expect_insert_note()
        .withf(|_, text| text == "hello")
        .times(1)
        .returning(move |_, _| ready(answer()));
    tx
}

async fn add_hello(tx: MockNoteTx) -> Outcome<NoteRefusal> {
    let note = NewNote {
        text: "hello".into(),
    };
    coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&AddNote, &caller(), &key(), &note)
        .await
}

#[tokio::test]
async fn a_second_operation_runs_through_the_same_coordinator_in_its_own_scope() {
    let mut tx = note_tx(|| Ok(77));
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));

    let outcome = add_hello(tx).await;

    let Outcome::Executed { response, .. } = outcome else {
        panic!("expected Executed, got {outcome:?}");
    };
    assert_eq!(response.body(), b"77");
    assert_eq!(response.content_type(), "application/json");
}

#[tokio::test]
async fn its_own_refusal_rolls_back_and_comes_out_as_it_was_made() {
    let mut tx = note_tx(|| Err(StepError::Rejected(NoteRefusal::NotebookFull)));
    tx.expect_complete().never();
    expect_rollback_only_on(&mut tx);

    let outcome = add_hello(tx).await;

    assert_eq!(outcome, Outcome::Rejected(NoteRefusal::NotebookFull));
}

fn expect_rollback_only_on(tx: &mut MockNoteTx) {
    tx.expect_rollback().times(1).returning(|| ready(Ok(())));
    tx.expect_commit().never();
}
