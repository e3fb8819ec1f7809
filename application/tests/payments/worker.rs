//! The worker's answers, one per branch: success, decline, a lost answer resolved by the
//! result query, retry with backoff, needs_review at the bound or past the key's retention.

use application::leased::Worked;
use application::ports::{Ending, NoAnswer, ProviderAnswer};
use chrono::TimeDelta;
use domain::{AttemptError, Generation};

use crate::support::*;

#[tokio::test]
async fn a_charge_ends_succeeded_with_its_payment() {
    let mut store = store_claiming();
    expect_completion(
        &mut store,
        Ending::Succeeded {
            provider_id: "ch_1".into(),
        },
        0,
        true,
    );
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

    let worked = work(&store, &provider, &operation(0)).await;

    assert_eq!(
        worked,
        Worked::Ended(Ending::Succeeded {
            provider_id: "ch_1".into()
        })
    );
}

#[tokio::test]
async fn a_definite_decline_ends_declined() {
    let mut store = store_claiming();
    expect_completion(&mut store, Ending::Declined, 0, true);
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_2", false)));

    assert_eq!(
        work(&store, &provider, &operation(0)).await,
        Worked::Ended(Ending::Declined)
    );
}

#[tokio::test]
async fn an_answer_lost_after_the_charge_is_resolved_by_the_result_query_under_the_same_key() {
    let mut store = store_claiming();
    expect_completion(
        &mut store,
        Ending::Succeeded {
            provider_id: "ch_3".into(),
        },
        0,
        true,
    );
    let mut provider = provider_answering(ProviderAnswer::Unknown(NoAnswer::new(
        AttemptError::Transport,
        "connection reset",
    )));
    provider
        .expect_lookup()
        .withf(|key, _| key == KEY)
        .times(1)
        .returning(|_, _| ready(Ok(Some(charged("ch_3", true)))));

    assert!(matches!(
        work(&store, &provider, &operation(0)).await,
        Worked::Ended(Ending::Succeeded { .. })
    ));
}

#[tokio::test]
async fn no_charge_found_counts_the_attempt_and_retries_later_with_backoff() {
    let mut store = store_claiming();
    store
        .expect_retry_later()
        .withf(|_, lease, attempts, error, next, now| {
            lease.generation == Generation::new(5)
                && *attempts == 2
                && *error == AttemptError::ProviderStatus
                // The second failed attempt waits twice the first backoff.
                && *now == t0() + TimeDelta::seconds(1)
                && *next == t0() + TimeDelta::seconds(1) + TimeDelta::seconds(4)
        })
        .times(1)
        .returning(|_, _, _, _, _, _| ready(Ok(true)));
    store.expect_complete().never();
    let mut provider = provider_answering(ProviderAnswer::Unknown(NoAnswer::new(
        AttemptError::ProviderStatus,
        "503",
    )));
    provider
        .expect_lookup()
        .times(1)
        .returning(|_, _| ready(Ok(None)));

    assert!(matches!(
        work(&store, &provider, &operation(1)).await,
        Worked::RetryAt(_)
    ));
}

#[tokio::test]
async fn the_last_attempt_without_an_answer_ends_needs_review_never_a_new_key() {
    let mut store = store_claiming();
    store.expect_retry_later().never();
    // The last attempt is counted with the end: 3 of 3; its class is the charge's.
    let ending = Ending::NeedsReview(AttemptError::Timeout);
    expect_completion(&mut store, ending.clone(), 3, true);
    let mut provider = provider_answering(ProviderAnswer::Unknown(NoAnswer::new(
        AttemptError::Timeout,
        "timeout",
    )));
    provider
        .expect_lookup()
        .times(1)
        .returning(|_, _| ready(Err(NoAnswer::new(AttemptError::Transport, "reset"))));

    assert_eq!(
        work(&store, &provider, &operation(2)).await,
        Worked::Ended(ending)
    );
}

#[tokio::test]
async fn an_operation_older_than_the_providers_key_retention_ends_needs_review_uncalled() {
    let mut store = store_claiming();
    // No call was made: the attempts stay as they were.
    let ending = Ending::NeedsReview(AttemptError::KeyRetentionPassed);
    expect_completion(&mut store, ending.clone(), 1, true);
    let mut provider = MockProvider::new();
    provider.expect_charge().never();
    provider.expect_lookup().never();
    let mut op = operation(1);
    op.accepted_at = t0() - TimeDelta::hours(24);

    assert_eq!(work(&store, &provider, &op).await, Worked::Ended(ending));
}

#[tokio::test]
async fn an_input_that_no_longer_reads_as_the_kinds_job_ends_needs_review_uncalled() {
    let mut store = store_claiming();
    let ending = Ending::NeedsReview(AttemptError::InputUnreadable);
    expect_completion(&mut store, ending.clone(), 1, true);
    let mut provider = MockProvider::new();
    provider.expect_charge().never();
    provider.expect_lookup().never();
    let mut op = operation(1);
    op.input = br#"{"amount":0,"currency":"JPY"}"#.to_vec();

    assert_eq!(work(&store, &provider, &op).await, Worked::Ended(ending));
}
