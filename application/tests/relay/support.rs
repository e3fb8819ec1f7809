//! Mocks of the relay's ports and the fixtures its cases share.

use std::future::Future;
use std::sync::{Arc, Mutex};

use application::ports::{
    Clock, EventPublisher, FlowHooks, OutboxClaim, OutboxRelayStore, PausePoint, PendingEvent,
    PendingSummary, PublishError, StoreError, Stored,
};
use chrono::{DateTime, Utc};
use mockall::mock;
use uuid::Uuid;

/// What a claim was settled with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settled {
    pub(crate) published: Vec<Uuid>,
    pub(crate) failed: Vec<Uuid>,
}

/// A claim over fixed events that records how it was settled.
pub(crate) struct FakeClaim {
    pub(crate) events: Vec<PendingEvent>,
    pub(crate) settled: Arc<Mutex<Vec<Settled>>>,
    pub(crate) result: Result<(), StoreError>,
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
    pub(crate) Store {}
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
    pub(crate) Publisher {}
    impl EventPublisher for Publisher {
        fn publish(
            &self,
            events: &[PendingEvent],
        ) -> impl Future<Output = Vec<Result<Stored, PublishError>>> + Send;
    }
}

mock! {
    pub(crate) Hooks {}
    impl FlowHooks for Hooks {
        fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send;
    }
}

/// A mock's answer: mockall wants the future boxed.
pub(crate) fn ready<T: Send + 'static>(
    value: T,
) -> std::pin::Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

pub(crate) struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000, 0).unwrap()
    }
}

pub(crate) fn events(n: u128) -> Vec<PendingEvent> {
    (1..=n)
        .map(|i| PendingEvent {
            id: Uuid::from_u128(i),
            subject: "orders.created.v1.1".to_owned(),
            payload: b"{}".to_vec(),
            created_at: FixedClock.now(),
            attempts: 0,
            trace_context: None,
        })
        .collect()
}

pub(crate) fn ids(events: &[PendingEvent]) -> Vec<Uuid> {
    events.iter().map(|e| e.id).collect()
}

/// A store whose one claim holds `events` and settles with `result`.
pub(crate) fn store_claiming(
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

pub(crate) fn publisher_answering(answers: Vec<Result<Stored, PublishError>>) -> MockPublisher {
    let mut publisher = MockPublisher::new();
    let answers = Mutex::new(Some(answers));
    publisher
        .expect_publish()
        .times(1)
        .returning(move |_| ready(answers.lock().unwrap().take().unwrap()));
    publisher
}

pub(crate) fn quiet_hooks() -> MockHooks {
    let mut hooks = MockHooks::new();
    hooks.expect_reached().returning(|_| ready(()));
    hooks
}

pub(crate) fn failed() -> Result<Stored, PublishError> {
    Err(PublishError("timed out".into()))
}

/// The broker stored it.
pub(crate) fn new() -> Result<Stored, PublishError> {
    Ok(Stored::New)
}
