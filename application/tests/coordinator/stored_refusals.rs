//! A refusal an operation declares stored (`docs/http-api.md#stored-refusals`): the step's
//! writes are undone back to the mark taken before it, the record completes with the
//! refusal's form, and a request with the key that meets the record gets those bytes again.

use std::future::Future;

use application::ports::{CommitError, InsertRecordError, NewRecord, RecordTx, StoreError};
use application::{
    Answer, BoxError, Execute, FailureCause, IdempotentOperation, Outcome, Refusal, RefusalForms,
    StepContext, StepError, answer,
};
use domain::{
    Completion, FingerprintVersion, Fingerprinted, RecordId, RecordState, StoredResponse, TenantId,
};
use mockall::{Sequence, mock};

use crate::support::*;

#[derive(Debug, Clone)]
struct Seats(u32);

impl Fingerprinted for Seats {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    fn fingerprint_fields(&self) -> Vec<String> {
        vec![self.0.to_string()]
    }
}

/// Over the hall's size is decided by the seats already taken, so it is stored; a closed
/// hall may open again, so it is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeatRefusal {
    NoSeatsLeft,
    HallClosed,
}

impl Refusal for SeatRefusal {
    const ALL: &'static [Self] = &[Self::NoSeatsLeft, Self::HallClosed];

    fn code(self) -> &'static str {
        match self {
            Self::NoSeatsLeft => "no_seats_left",
            Self::HallClosed => "hall_closed",
        }
    }

    fn is_stored(self) -> bool {
        self == Self::NoSeatsLeft
    }
}

trait SeatRepository {
    /// Takes the seats, then answers how many the hall had left before.
    fn take_seats(
        &mut self,
        tenant: TenantId,
        seats: u32,
    ) -> impl Future<Output = Result<u32, StepError<SeatRefusal>>> + Send;
}

struct ReserveSeats;

impl IdempotentOperation for ReserveSeats {
    const NAME: &'static str = "seats.reserve.v1";
    const PERMISSION: &'static str = "orders:create";
    type Input = Seats;
    type Refusal = SeatRefusal;
    type Reserved = ();
}

impl<Tx: SeatRepository + Send> Execute<Tx> for ReserveSeats {
    /// Writes first and refuses after, so only the undo keeps the refusal's answer alone.
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &Seats,
    ) -> Result<StoredResponse, StepError<SeatRefusal>> {
        let left = tx.take_seats(context.tenant, input.0).await?;
        if left < input.0 {
            return Err(StepError::Rejected(SeatRefusal::NoSeatsLeft));
        }
        answer(Answer::Done, left.to_string().into_bytes())
    }
}

/// The edge's part in production: here a fixed problem per code.
struct Forms;

impl RefusalForms<SeatRefusal> for Forms {
    fn stored(&self, refusal: SeatRefusal) -> Result<StoredResponse, BoxError> {
        Ok(StoredResponse::new(
            409,
            "application/problem+json".into(),
            None,
            format!(r#"{{"code":"{}"}}"#, refusal.code()).into_bytes(),
        )?)
    }
}

mock! {
    SeatTx {}
    impl RecordTx for SeatTx {
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
    impl SeatRepository for SeatTx {
        fn take_seats(
            &mut self,
            tenant: TenantId,
            seats: u32,
        ) -> impl Future<Output = Result<u32, StepError<SeatRefusal>>> + Send;
    }
}

/// The record, the mark, then the step taking seats from a hall with `left`, in order.
fn tx_taking_seats(seq: &mut Sequence, left: u32) -> MockSeatTx {
    let mut tx = MockSeatTx::new();
    tx.expect_insert_processing()
        .times(1)
        .in_sequence(seq)
        .returning(|_| ready(Ok(RecordId(8))));
    tx.expect_savepoint()
        .times(1)
        .in_sequence(seq)
        .returning(|| ready(Ok(())));
    tx.expect_take_seats()
        .times(1)
        .in_sequence(seq)
        .returning(move |_, _| ready(Ok(left)));
    tx
}

#[tokio::test]
async fn a_stored_refusal_undoes_the_step_and_commits_the_record_with_its_form() {
    let mut seq = Sequence::new();
    let mut tx = tx_taking_seats(&mut seq, 1);
    tx.expect_rollback_to_savepoint()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_complete()
        .withf(|id, completion| {
            *id == RecordId(8)
                && completion.response.status() == 409
                && completion.response.body() == br#"{"code":"no_seats_left"}"#
        })
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| ready(Ok(1)));
    tx.expect_commit()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_rollback().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .with_refusal_forms(Forms)
        .run(&ReserveSeats, &caller(), &key(), &Seats(3))
        .await;

    let Outcome::RejectedAndStored {
        refusal,
        record,
        response,
    } = outcome
    else {
        panic!("expected a stored refusal, got {outcome:?}");
    };
    assert_eq!((refusal, record), (SeatRefusal::NoSeatsLeft, RecordId(8)));
    assert_eq!(response.body(), br#"{"code":"no_seats_left"}"#);
}

#[tokio::test]
async fn a_refusal_not_stored_rolls_the_whole_transaction_back_as_ever() {
    let mut seq = Sequence::new();
    let mut tx = MockSeatTx::new();
    tx.expect_insert_processing()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| ready(Ok(RecordId(8))));
    tx.expect_savepoint()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_take_seats()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| ready(Err(StepError::Rejected(SeatRefusal::HallClosed))));
    tx.expect_rollback()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_rollback_to_savepoint().never();
    tx.expect_complete().never();
    tx.expect_commit().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .with_refusal_forms(Forms)
        .run(&ReserveSeats, &caller(), &key(), &Seats(3))
        .await;

    assert_eq!(outcome, Outcome::Rejected(SeatRefusal::HallClosed));
}

#[tokio::test]
async fn without_forms_a_stored_refusal_fails_rather_than_going_unstored() {
    let mut seq = Sequence::new();
    let mut tx = tx_taking_seats(&mut seq, 0);
    tx.expect_rollback_to_savepoint()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_rollback()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|| ready(Ok(())));
    tx.expect_complete().never();
    tx.expect_commit().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&ReserveSeats, &caller(), &key(), &Seats(3))
        .await;

    assert!(
        matches!(outcome, Outcome::Failed(FailureCause::Internal(_))),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_request_meeting_the_stored_record_gets_the_same_bytes_replayed() {
    let mut tx = tx_hitting_the_seats_key();
    tx.expect_take_seats().never();
    let stored = Forms.stored(SeatRefusal::NoSeatsLeft).unwrap();
    let found = domain::ExistingRecord {
        id: RecordId(8),
        fingerprint: Seats(3).fingerprint(&ReserveSeats::OPERATION),
        state: RecordState::Completed(
            Completion::new(stored.clone(), t0(), domain::RetentionPolicy::default()).unwrap(),
        ),
    };

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding(Some(found)))
        .with_refusal_forms(Forms)
        .run(&ReserveSeats, &caller(), &key(), &Seats(3))
        .await;

    assert_eq!(
        outcome,
        Outcome::Replayed {
            record: RecordId(8),
            response: stored
        }
    );
}

/// The leader, held after its record insert, then the follower, polled in that order.
#[tokio::test(start_paused = true)]
async fn a_same_key_request_of_this_process_waiting_on_it_gets_the_stored_refusal() {
    let mut seq = Sequence::new();
    let mut tx = tx_taking_seats(&mut seq, 0);
    tx.expect_rollback_to_savepoint()
        .times(1)
        .returning(|| ready(Ok(())));
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    let gate = Gate::closed();
    let coordinator = in_one_process(
        coordinator(ScriptedUnitOfWork::of([tx]), no_reads()).with_refusal_forms(Forms),
        &gate,
    );

    let (first, second, ()) = futures_util::future::join3(
        coordinator.run(&ReserveSeats, &caller(), &key(), &Seats(3)),
        coordinator.run(&ReserveSeats, &caller(), &key(), &Seats(3)),
        async { gate.open(1) },
    )
    .await;

    let Outcome::RejectedAndStored { response, .. } = first else {
        panic!("the leader: {first:?}");
    };
    assert_eq!(
        second,
        Outcome::Replayed {
            record: RecordId(8),
            response
        }
    );
}

/// A retry's transaction: its record insert hits the scope key, then is rolled back.
fn tx_hitting_the_seats_key() -> MockSeatTx {
    let mut tx = MockSeatTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::KeyAlreadyRegistered)));
    tx.expect_rollback().times(1).returning(|| ready(Ok(())));
    tx.expect_savepoint().never();
    tx.expect_complete().never();
    tx.expect_commit().never();
    tx
}
