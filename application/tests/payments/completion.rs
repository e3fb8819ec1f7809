//! A definite end the store refuses (`docs/long-running-operations.md#the-worker`): written
//! once more, and refused the same way again, the operation ends `needs_review`
//! (`completion_failed`) instead of calling the provider on every lease for ever.

use application::leased::{Step, Worked};
use application::ports::{Ending, ProviderAnswer, StoreError};
use domain::AttemptError;
use mockall::Sequence;

use crate::support::*;

fn success() -> Ending {
    Ending::Succeeded {
        provider_id: "ch_1".into(),
    }
}

/// A refusal that is the same every time it is made, as a constraint's or a trigger's is.
fn refused() -> StoreError {
    StoreError::Other("Data too long for column 'provider_charge_id'".into())
}

/// The store answers each completion in turn: the ending it must be asked for, its answer.
fn store_answering(answers: Vec<(Ending, u32, Result<bool, StoreError>)>) -> MockStore {
    let mut store = store_claiming();
    let mut order = Sequence::new();
    for (ending, attempts, answer) in answers {
        let mut answer = Some(answer);
        store
            .expect_complete()
            .withf(move |end, _| *end.ending == ending && end.attempts == attempts)
            .times(1)
            .in_sequence(&mut order)
            .returning(move |_, _| ready(answer.take().unwrap_or(Ok(false))));
    }
    store
}

#[tokio::test]
async fn an_end_refused_twice_the_same_way_ends_needs_review_counted() {
    let review = Ending::NeedsReview(AttemptError::CompletionFailed);
    let store = store_answering(vec![
        (success(), 2, Err(refused())),
        (success(), 2, Err(refused())),
        (review, 3, Ok(true)),
    ]);
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

    let worked = work(&store, &provider, &operation(2)).await;

    assert_eq!(worked, Worked::Unrecorded { error: refused() });
}

#[tokio::test]
async fn an_end_refused_once_is_written_the_second_time() {
    let store = store_answering(vec![
        (success(), 0, Err(refused())),
        (success(), 0, Ok(true)),
    ]);
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

    assert_eq!(
        work(&store, &provider, &operation(0)).await,
        Worked::Ended(success())
    );
}

#[tokio::test]
async fn an_end_refused_two_ways_is_abandoned_for_the_next_lease() {
    let other = || StoreError::Other("Lost connection to server during query".into());
    let store = store_answering(vec![
        (success(), 0, Err(refused())),
        (success(), 0, Err(other())),
    ]);
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

    assert_eq!(
        work(&store, &provider, &operation(0)).await,
        Worked::Abandoned {
            step: Step::Completion,
            error: other()
        }
    );
}

/// A deadlock or a lost connection says nothing of the next try: the lease runs out and
/// the next owner asks the provider again under the same key.
#[tokio::test]
async fn a_passing_failure_is_not_written_again_in_the_same_lease() {
    for passing in [
        StoreError::Deadlock,
        StoreError::LockWaitTimeout,
        StoreError::Timeout,
    ] {
        let store = store_answering(vec![(success(), 0, Err(passing))]);
        let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

        assert!(matches!(
            work(&store, &provider, &operation(0)).await,
            Worked::Abandoned {
                step: Step::Completion,
                ..
            }
        ));
    }
}

/// A `needs_review` end runs no kind's writes, so a refusal of it is not the kind's: it
/// is not written again.
#[tokio::test]
async fn a_refused_review_is_abandoned_at_once() {
    let ending = Ending::NeedsReview(AttemptError::Timeout);
    let mut store = store_answering(vec![(ending, 3, Err(refused()))]);
    store.expect_retry_later().never();
    let mut provider = provider_answering(ProviderAnswer::Unknown(
        application::ports::NoAnswer::new(AttemptError::Timeout, "read timed out"),
    ));
    provider
        .expect_lookup()
        .times(1)
        .returning(|_, _| ready(Ok(None)));

    assert!(matches!(
        work(&store, &provider, &operation(2)).await,
        Worked::Abandoned {
            step: Step::Completion,
            ..
        }
    ));
}
