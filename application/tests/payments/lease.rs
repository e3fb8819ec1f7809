//! The worker's claim and lease, one case per branch: a lost or running claim, the fence,
//! the heartbeat's extensions (taken, failing, keeping a slow call alive), failed writes.

use application::leased::{Step, Worked};
use application::ports::{Ending, ProviderAnswer, StoreError};
use chrono::TimeDelta;
use domain::{Generation, OwnerId};

use crate::support::*;

#[tokio::test]
async fn a_lost_claim_calls_no_provider() {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .times(1)
        .returning(|_, _, _, _| ready(Ok(false)));
    let mut provider = MockProvider::new();
    provider.expect_charge().never();

    assert_eq!(
        work(&store, &provider, &operation(0)).await,
        Worked::NotClaimed
    );
}

#[tokio::test]
async fn a_lease_still_running_is_not_even_tried() {
    let mut store = MockStore::new();
    store.expect_claim().never();
    let mut op = operation(0);
    op.lease.holder = Some((
        OwnerId::parse("worker-2").unwrap(),
        t0() + TimeDelta::seconds(5),
    ));

    assert_eq!(
        work(&store, &MockProvider::new(), &op).await,
        Worked::NotClaimed
    );
}

#[tokio::test]
async fn a_completion_refused_by_the_fence_means_the_lease_was_lost() {
    let mut store = store_claiming();
    expect_completion(&mut store, Ending::Declined, 0, false);
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_4", false)));

    assert_eq!(
        work(&store, &provider, &operation(0)).await,
        Worked::LeaseLost
    );
}

#[tokio::test]
async fn an_extension_that_finds_the_lease_taken_stops_the_worker_before_any_write() {
    let mut store = store_claiming();
    store
        .expect_extend()
        .withf(|_, lease| {
            lease.generation == Generation::new(5)
                && lease.expires_at == t0() + TimeDelta::seconds(20 + 30)
        })
        .times(1)
        .returning(|_, _| ready(Ok(false)));
    store.expect_complete().never();
    store.expect_retry_later().never();
    let mut provider = MockProvider::new();
    // The provider never answers; the heartbeat beats once, 20 s in.
    provider
        .expect_charge()
        .times(1)
        .returning(|_, _, _| Box::pin(std::future::pending()));

    let worked = work_with(&store, &provider, &clock_beating(20, 1), &operation(0))
        .await
        .unwrap();

    assert_eq!(worked, Worked::LeaseLost);
}

#[tokio::test]
async fn a_failed_extension_stops_the_worker_before_any_write() {
    let mut store = store_claiming();
    store
        .expect_extend()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::ConnectionLost("connection reset".into()))));
    store.expect_complete().never();
    store.expect_retry_later().never();
    let mut provider = MockProvider::new();
    provider
        .expect_charge()
        .times(1)
        .returning(|_, _, _| Box::pin(std::future::pending()));

    let result = work_with(&store, &provider, &clock_beating(20, 1), &operation(0)).await;

    assert!(
        matches!(
            result,
            Ok(Worked::Abandoned {
                step: Step::Extension,
                ..
            })
        ),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_failed_completion_abandons_the_claimed_operation_and_names_the_step() {
    let mut store = store_claiming();
    store
        .expect_complete()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::Deadlock)));
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_7", true)));

    let worked = work(&store, &provider, &operation(0)).await;

    assert!(
        matches!(
            worked,
            Worked::Abandoned {
                step: Step::Completion,
                ..
            }
        ),
        "{worked:?}"
    );
}

#[tokio::test]
async fn a_slow_call_keeps_its_lease_alive_and_completes_under_the_extended_lease() {
    let mut store = store_claiming();
    store
        .expect_extend()
        .withf(|_, lease| lease.expires_at == t0() + TimeDelta::seconds(20 + 30))
        .times(1)
        .returning(|_, _| ready(Ok(true)));
    store
        .expect_complete()
        .withf(|end, _| {
            end.lease.generation == Generation::new(5)
                && end.lease.expires_at == t0() + TimeDelta::seconds(20 + 30)
                && *end.ending
                    == Ending::Succeeded {
                        provider_id: "ch_6".into(),
                    }
        })
        .times(1)
        .returning(|_, _| ready(Ok(true)));
    let mut provider = MockProvider::new();
    provider
        .expect_charge()
        .times(1)
        .returning(|_, _, _| slow(ProviderAnswer::Definite(charged("ch_6", true))));

    let worked = work_with(&store, &provider, &clock_beating(20, 1), &operation(0))
        .await
        .unwrap();

    assert!(matches!(worked, Worked::Ended(Ending::Succeeded { .. })));
}

#[tokio::test]
async fn a_store_failure_on_the_claim_is_reported() {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .times(1)
        .returning(|_, _, _, _| ready(Err(StoreError::ConnectionLost("connection reset".into()))));

    let result = work_with(&store, &MockProvider::new(), &clock(1), &operation(0)).await;

    assert!(
        matches!(result, Err(StoreError::ConnectionLost(_))),
        "{result:?}"
    );
}

#[test]
fn the_heartbeat_beats_three_times_per_lease() {
    assert_eq!(settings().heartbeat(), std::time::Duration::from_secs(10));
}

#[test]
fn each_failed_step_has_its_own_name_for_the_log() {
    let names = [Step::Extension, Step::Retry, Step::Completion].map(Step::as_str);
    assert_eq!(names, ["lease extension", "retry write", "completion"]);
}
