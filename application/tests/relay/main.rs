//! The relay's branches, with mocked ports: what it marks published, what it leaves
//! pending, and when it calls the broker at all.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use application::ports::{
    Clock, EventPublisher, FlowHooks, HookVerdict, OutboxClaim, OutboxRelayStore, PausePoint,
    PendingEvent, PendingSummary, PublishError, StoreError,
};
use application::{Relay, RelayPacing, RelayPass};
use chrono::{DateTime, Utc};
use domain::{IdempotencyKey, Scope};
use mockall::{Sequence, mock};
use uuid::Uuid;

/// What a claim was settled with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Settled {
    published: Vec<Uuid>,
    failed: Vec<Uuid>,
}

/// A claim over fixed events that records how it was settled.
struct FakeClaim {
    events: Vec<PendingEvent>,
    settled: Arc<Mutex<Vec<Settled>>>,
    result: Result<(), StoreError>,
}

impl OutboxClaim for FakeClaim {
    fn events(&self) -> &[PendingEvent] {
        &self.events
    }

    fn settle(
        self,
        published: &[Uuid],
        failed: &[Uuid],
        _now: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.settled.lock().unwrap().push(Settled {
            published: published.to_vec(),
            failed: failed.to_vec(),
        });
        std::future::ready(self.result)
    }
}

mock! {
    Store {}
    impl OutboxRelayStore for Store {
        type Claim = FakeClaim;
        fn claim(&self, limit: usize) -> impl Future<Output = Result<FakeClaim, StoreError>> + Send;
        fn pending(&self) -> impl Future<Output = Result<PendingSummary, StoreError>> + Send;
        fn purge_published_batch(
            &self,
            cutoff: DateTime<Utc>,
            limit: u32,
        ) -> impl Future<Output = Result<u64, StoreError>> + Send;
    }
}

mock! {
    Publisher {}
    impl EventPublisher for Publisher {
        fn publish(
            &self,
            events: &[PendingEvent],
        ) -> impl Future<Output = Vec<Result<(), PublishError>>> + Send;
    }
}

mock! {
    Hooks {}
    impl FlowHooks for Hooks {
        fn after_record_insert(
            &self,
            scope: &Scope,
            key: &IdempotencyKey,
        ) -> impl Future<Output = HookVerdict> + Send;
        fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send;
    }
}

/// A mock's answer: mockall wants the future boxed.
fn ready<T: Send + 'static>(value: T) -> std::pin::Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000, 0).unwrap()
    }
}

fn events(n: u128) -> Vec<PendingEvent> {
    (1..=n)
        .map(|i| PendingEvent {
            id: Uuid::from_u128(i),
            subject: "orders.created.v1.1".to_owned(),
            payload: b"{}".to_vec(),
            created_at: FixedClock.now(),
            attempts: 0,
        })
        .collect()
}

fn ids(events: &[PendingEvent]) -> Vec<Uuid> {
    events.iter().map(|e| e.id).collect()
}

/// A store whose one claim holds `events` and settles with `result`.
fn store_claiming(
    events: Vec<PendingEvent>,
    result: Result<(), StoreError>,
) -> (MockStore, Arc<Mutex<Vec<Settled>>>) {
    let settled = Arc::new(Mutex::new(Vec::new()));
    let mut store = MockStore::new();
    let claim = Mutex::new(Some(FakeClaim {
        events,
        settled: Arc::clone(&settled),
        result,
    }));
    store
        .expect_claim()
        .withf(|limit| *limit == 10)
        .times(1)
        .returning(move |_| ready(Ok(claim.lock().unwrap().take().unwrap())));
    (store, settled)
}

fn publisher_answering(answers: Vec<Result<(), PublishError>>) -> MockPublisher {
    let mut publisher = MockPublisher::new();
    let answers = Mutex::new(Some(answers));
    publisher
        .expect_publish()
        .times(1)
        .returning(move |_| ready(answers.lock().unwrap().take().unwrap()));
    publisher
}

fn quiet_hooks() -> MockHooks {
    let mut hooks = MockHooks::new();
    hooks.expect_reached().returning(|_| ready(()));
    hooks
}

fn failed() -> Result<(), PublishError> {
    Err(PublishError("timed out".to_owned()))
}

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
    let publisher = publisher_answering(vec![Ok(()), Ok(()), Ok(())]);

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
async fn a_failed_publish_leaves_only_that_event_pending_with_an_attempt_counted() {
    let batch = events(3);
    let (store, settled) = store_claiming(batch.clone(), Ok(()));
    let publisher = publisher_answering(vec![Ok(()), failed(), Ok(())]);

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
    let publisher = publisher_answering(vec![Ok(())]);

    let pass = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await
        .unwrap();

    assert_eq!((pass.published, pass.failed), (1, 2));
    assert_eq!(settled.lock().unwrap()[0].published, vec![batch[0].id]);
}

#[tokio::test]
async fn a_failure_to_mark_is_reported_and_the_batch_stays_pending() {
    let (store, _settled) = store_claiming(events(2), Err(StoreError::ConnectionLost));
    let publisher = publisher_answering(vec![Ok(()), Ok(())]);

    let result = Relay::new(store, publisher, quiet_hooks(), 10)
        .run_once(&FixedClock)
        .await;

    assert!(
        matches!(result, Err(StoreError::ConnectionLost)),
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
async fn the_pause_point_lies_between_the_acks_and_the_marking() {
    let mut sequence = Sequence::new();
    let batch = events(1);
    let (store, settled) = store_claiming(batch, Ok(()));
    let mut publisher = MockPublisher::new();
    publisher
        .expect_publish()
        .times(1)
        .in_sequence(&mut sequence)
        .returning(|_| ready(vec![Ok(())]));
    let mut hooks = MockHooks::new();
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
        })
    };
    assert_eq!(pacing.wait(&pass(10, 0), 10, 0), Duration::ZERO);
    assert_eq!(pacing.wait(&pass(3, 0), 10, 0), Duration::from_millis(50));
    assert_eq!(pacing.wait(&pass(10, 1), 10, 1), Duration::from_millis(100));
    assert_eq!(
        pacing.wait(&Err(StoreError::ConnectionLost), 10, 3),
        Duration::from_millis(400)
    );
    assert_eq!(
        pacing.wait(&Err(StoreError::ConnectionLost), 10, 30),
        Duration::from_secs(5)
    );
}
