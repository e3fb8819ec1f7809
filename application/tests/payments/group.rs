//! A worker's group of operations: each member keeps its own fence and its own answer.
//! One member's refused record or lost lease is that member's alone; the rest of the
//! group still ends.

use application::leased::{Worked, work_group};
use application::payments::CapturePayment;
use application::ports::{Ending, ProviderAnswer, StoreError};
use domain::{AttemptError, Generation};
use uuid::Uuid;

use crate::support::{
    Clock2, MockProvider, MockStore, bounded, charged, clock, clock_beating, operation, ports,
    ready, settings, slow,
};

/// Three due captures, 7, 8 and 9, each at generation 4.
fn group() -> Vec<application::ports::DueOperation> {
    (7..=9)
        .map(|n| application::ports::DueOperation {
            id: Uuid::from_u128(n),
            downstream_key: format!("key-{n}"),
            ..operation(0)
        })
        .collect()
}

fn store_claiming_all() -> MockStore {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .withf(|_, seen, lease, _| {
            *seen == Generation::new(4) && lease.generation == Generation::new(5)
        })
        .times(3)
        .returning(|_, _, _, _| ready(Ok(true)));
    store
}

fn provider_charging(
    answer: fn() -> std::pin::Pin<Box<dyn Future<Output = ProviderAnswer> + Send>>,
) -> MockProvider {
    let mut provider = MockProvider::new();
    provider
        .expect_charge()
        .times(3)
        .returning(move |_, _, _| answer());
    provider
}

fn succeeded() -> Ending {
    Ending::Succeeded {
        provider_id: "ch_1".into(),
    }
}

async fn work(store: &MockStore, provider: &MockProvider, clock: &Clock2) -> Vec<Worked> {
    let operations = group();
    let ports = ports(store, provider, clock);
    bounded(work_group::<CapturePayment, _, _, _>(
        ports,
        &settings(),
        &operations,
        &[],
    ))
    .await
    .unwrap()
}

/// The group's one transaction fails because the middle member's record is refused: each
/// member is then ended alone, and only that one goes to a person.
#[tokio::test]
async fn a_refused_record_in_a_group_sends_only_its_member_to_review() {
    let mut store = store_claiming_all();
    store
        .expect_complete_all()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::Other("record refused".into()))));
    store
        .expect_complete()
        .withf(|end, _| end.operation.id != Uuid::from_u128(8))
        .times(2)
        .returning(|_, _| ready(Ok(true)));
    store
        .expect_complete()
        .withf(|end, _| end.operation.id == Uuid::from_u128(8) && *end.ending == succeeded())
        .times(2)
        .returning(|_, _| ready(Err(StoreError::Other("record refused".into()))));
    store
        .expect_complete()
        .withf(|end, _| {
            end.operation.id == Uuid::from_u128(8)
                && *end.ending == Ending::NeedsReview(AttemptError::CompletionFailed)
        })
        .times(1)
        .returning(|_, _| ready(Ok(true)));
    let provider = provider_charging(|| ready(ProviderAnswer::Definite(charged("ch_1", true))));
    let worked = work(&store, &provider, &clock(1)).await;
    assert_eq!(worked[0], Worked::Ended(succeeded()));
    assert!(matches!(worked[1], Worked::Unrecorded { .. }), "{worked:?}");
    assert_eq!(worked[2], Worked::Ended(succeeded()));
}

/// An extension finds the middle member taken over while the calls are out: it is not
/// ended, and the others are, together.
#[tokio::test]
async fn a_member_taken_over_is_not_ended_while_the_rest_of_its_group_is() {
    let mut store = store_claiming_all();
    store
        .expect_extend()
        .times(3)
        .returning(|id, _| ready(Ok(id != Uuid::from_u128(8))));
    store
        .expect_complete_all()
        .withf(|ends, _| {
            ends.iter().map(|end| end.operation.id).collect::<Vec<_>>()
                == [Uuid::from_u128(7), Uuid::from_u128(9)]
        })
        .times(1)
        .returning(|_, _| ready(Ok(vec![true, true])));
    let provider = provider_charging(|| slow(ProviderAnswer::Definite(charged("ch_1", true))));
    let worked = work(&store, &provider, &clock_beating(1, 1)).await;
    assert_eq!(
        worked,
        [
            Worked::Ended(succeeded()),
            Worked::LeaseLost,
            Worked::Ended(succeeded())
        ]
    );
}
