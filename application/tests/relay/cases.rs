//! The relay's cases, one per branch, and its pacing.

use application::ports::{Clock, PausePoint, StoreError, Stored};
use application::{Relay, RelayPacing, RelayPass};
use mockall::Sequence;
use std::sync::Arc;
use std::time::Duration;

use crate::support::*;

#[tokio::test]
async fn an_empty_outbox_ends_the_claim_without_calling_the_broker() {
    let (store, settled) = store_claiming(Vec::new(), Ok(()));
    let mut publisher = MockPublisher::new();
    publisher.expect_publish().never();

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!(pass, RelayPass::default());
    assert_eq!(
        *settled.lock().unwrap(),
        vec![Settled {
            published: vec![],
            failed: vec![]
        }]
    );
}

#[tokio::test]
async fn acknowledged_events_are_marked_published() {
    let batch = events(3);
    let (store, settled) = store_claiming(batch.clone(), Ok(()));
    let publisher = publisher_answering(vec![new(), new(), new()]);

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!((pass.claimed, pass.published, pass.failed), (3, 3, 0));
    assert_eq!(
        *settled.lock().unwrap(),
        vec![Settled {
            published: ids(&batch),
            failed: vec![]
        }]
    );
}

#[tokio::test]
async fn a_duplicate_acknowledgement_is_published_and_counted_as_a_duplicate() {
    let batch = events(3);
    let (store, settled) = store_claiming(batch.clone(), Ok(()));
    let publisher = publisher_answering(vec![Ok(Stored::Duplicate), new(), Ok(Stored::Duplicate)]);

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!((pass.published, pass.duplicates, pass.failed), (3, 2, 0));
    assert_eq!(settled.lock().unwrap()[0].published, ids(&batch));
}

#[tokio::test]
async fn a_failed_publish_leaves_only_that_event_pending_with_an_attempt_counted() {
    let batch = events(3);
    let (store, settled) = store_claiming(batch.clone(), Ok(()));
    let publisher = publisher_answering(vec![new(), failed(), new()]);

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!((pass.claimed, pass.published, pass.failed), (3, 2, 1));
    assert_eq!(
        *settled.lock().unwrap(),
        vec![Settled {
            published: vec![batch[0].id, batch[2].id],
            failed: vec![batch[1].id]
        }]
    );
}

#[tokio::test]
async fn events_the_broker_did_not_answer_for_are_never_marked_published() {
    let batch = events(3);
    let (store, settled) = store_claiming(batch.clone(), Ok(()));
    let publisher = publisher_answering(vec![new()]);

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!((pass.published, pass.failed), (1, 2));
    assert_eq!(settled.lock().unwrap()[0].published, vec![batch[0].id]);
}

#[tokio::test]
async fn a_failure_to_mark_is_reported_and_the_batch_stays_pending() {
    let (store, _settled) = store_claiming(
        events(2),
        Err(StoreError::ConnectionLost("connection reset".into())),
    );
    let publisher = publisher_answering(vec![new(), new()]);

    let result = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await;

    assert!(
        matches!(result, Err(StoreError::ConnectionLost(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_failed_claim_calls_the_broker_not_at_all() {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .times(1)
        .returning(|_| ready(Err(StoreError::Timeout)));
    let mut publisher = MockPublisher::new();
    publisher.expect_publish().never();

    let result = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await;

    assert!(matches!(result, Err(StoreError::Timeout)), "{result:?}");
}

#[tokio::test]
async fn the_pause_points_lie_before_the_publish_and_between_the_acks_and_the_marking() {
    let mut sequence = Sequence::new();
    let batch = events(1);
    let (store, settled) = store_claiming(batch, Ok(()));
    let published = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut hooks = MockHooks::new();
    let not_yet = Arc::clone(&published);
    hooks
        .expect_reached()
        .withf(|point| *point == PausePoint::RelayClaimed)
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_| {
            assert!(
                !not_yet.load(std::sync::atomic::Ordering::SeqCst),
                "not published yet"
            );
            ready(())
        });
    let mut publisher = MockPublisher::new();
    let publishing = Arc::clone(&published);
    publisher
        .expect_publish()
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_| {
            publishing.store(true, std::sync::atomic::Ordering::SeqCst);
            ready(vec![new()])
        });
    let seen = Arc::clone(&settled);
    hooks
        .expect_reached()
        .withf(|point| *point == PausePoint::RelayAcked)
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_| {
            assert!(seen.lock().unwrap().is_empty(), "not marked yet");
            ready(())
        });

    Relay::new(store, publisher, hooks, 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!(settled.lock().unwrap().len(), 1);
}

#[test]
fn pacing_goes_on_after_a_full_batch_polls_after_a_short_one_and_backs_off_on_failures() {
    let pacing = RelayPacing {
        poll: Duration::from_millis(50),
        max_backoff: Duration::from_secs(5),
    };
    let pass = |claimed, failed| {
        Ok(RelayPass {
            claimed,
            published: claimed - failed,
            failed,
            ..RelayPass::default()
        })
    };
    assert_eq!(pacing.wait(&pass(10, 0), 10, 0), Duration::ZERO);
    assert_eq!(pacing.wait(&pass(3, 0), 10, 0), Duration::from_millis(50));
    assert_eq!(pacing.wait(&pass(10, 1), 10, 1), Duration::from_millis(100));
    assert_eq!(
        pacing.wait(
            &Err(StoreError::ConnectionLost("connection reset".into())),
            10,
            3
        ),
        Duration::from_millis(400)
    );
    assert_eq!(
        pacing.wait(
            &Err(StoreError::ConnectionLost("connection reset".into())),
            10,
            30
        ),
        Duration::from_secs(5)
    );
}

#[test]
fn a_relay_claims_the_batch_it_was_given_and_never_none() {
    let relay = |batch| Relay::new(MockStore::new(), MockPublisher::new(), quiet_hooks(), batch);
    assert_eq!(relay(256).batch(), 256);
    assert_eq!(relay(0).batch(), 1);
}

#[tokio::test]
async fn published_events_are_purged_in_batches_from_the_retention_cutoff() {
    let retention = domain::RetentionPolicy::from_secs(3_600).unwrap();
    let cutoff = FixedClock.now() - retention.period();
    let mut store = MockStore::new();
    let mut batches = Sequence::new();
    for deleted in [10, 4] {
        store
            .expect_purge_published_batch()
            .withf(move |at, limit| *at == cutoff && *limit == 10)
            .times(1)
            .in_sequence(&mut batches)
            .returning(move |_, _| ready(Ok(deleted)));
    }
    let settings = application::PurgeSettings {
        batch_size: 10,
        max_batches: 100,
    };

    let purged = application::purge_published_events(&store, &FixedClock, retention, settings)
        .await
        .unwrap();

    assert_eq!(purged, 14, "every batch counted, until a short one");
}
