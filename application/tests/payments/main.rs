//! Every branch of the capture worker, with mocked ports (mockall): claim, the provider's
//! answers, the result query under the same key, retry with backoff, needs-review past
//! the bound, and the fence.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use application::payments::{Worked, WorkerSettings, work_once};
use application::ports::{
    Charge, Clock, DueOperation, Ending, OperationStore, PaymentProvider, ProviderAnswer,
    StoreError,
};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{
    Amount, Currency, Generation, Lease, LeaseView, OrderId, OwnerId, PaymentCapture, TenantId,
};
use mockall::mock;
use uuid::Uuid;

mock! {
    Store {}
    impl OperationStore for Store {
        fn due(
            &self,
            limit: usize,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<Vec<DueOperation>, StoreError>> + Send;
        fn claim(
            &self,
            id: Uuid,
            seen: Generation,
            lease: &Lease,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn extend(&self, id: Uuid, lease: &Lease) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn complete(
            &self,
            id: Uuid,
            lease: &Lease,
            ending: &Ending,
            now: DateTime<Utc>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn retry_later(
            &self,
            id: Uuid,
            lease: &Lease,
            attempts: u32,
            next_attempt_at: DateTime<Utc>,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    }
}

mock! {
    Provider {}
    impl PaymentProvider for Provider {
        fn charge(
            &self,
            key: &str,
            input: &PaymentCapture,
            reference: &str,
        ) -> impl Future<Output = ProviderAnswer> + Send;
        fn lookup(&self, key: &str) -> impl Future<Output = Result<Option<Charge>, String>> + Send;
    }
}

/// A mock's answer: mockall wants the future boxed.
fn ready<T: Send + 'static>(value: T) -> Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

const KEY: &str = "op-downstream-key";

fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

/// A clock that reads `t0`, then `later` on every read after the first (the provider
/// call takes that long).
struct Clock2 {
    reads: Mutex<u32>,
    later: TimeDelta,
}

impl Clock for Clock2 {
    fn now(&self) -> DateTime<Utc> {
        let mut reads = self.reads.lock().unwrap();
        *reads += 1;
        if *reads == 1 { t0() } else { t0() + self.later }
    }
}

fn clock(later_secs: i64) -> Clock2 {
    Clock2 {
        reads: Mutex::new(0),
        later: TimeDelta::seconds(later_secs),
    }
}

fn settings() -> WorkerSettings {
    WorkerSettings {
        owner: OwnerId::parse("worker-1").unwrap(),
        lease: TimeDelta::seconds(30),
        max_attempts: 3,
        first_backoff: Duration::from_secs(2),
    }
}

fn operation(attempts: u32) -> DueOperation {
    DueOperation {
        id: Uuid::from_u128(7),
        tenant: TenantId::parse(1).unwrap(),
        input: PaymentCapture {
            order: OrderId::new(9),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        },
        downstream_key: KEY.to_owned(),
        attempts,
        lease: LeaseView {
            generation: Generation::new(4),
            holder: None,
        },
    }
}

/// A store whose claim of generation 4 succeeds with generation 5.
fn store_claiming() -> MockStore {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .withf(|id, seen, lease, now| {
            *id == Uuid::from_u128(7)
                && *now == t0()
                && *seen == Generation::new(4)
                && lease.generation == Generation::new(5)
                && lease.expires_at == t0() + TimeDelta::seconds(30)
        })
        .times(1)
        .returning(|_, _, _, _| ready(Ok(true)));
    store
}

fn provider_answering(answer: ProviderAnswer) -> MockProvider {
    let mut provider = MockProvider::new();
    provider
        .expect_charge()
        .withf(|key, input, reference| {
            key == KEY
                && input.amount.get() == 1500
                && reference == Uuid::from_u128(7).hyphenated().to_string()
        })
        .times(1)
        .returning(move |_, _, _| ready(answer.clone()));
    provider
}

fn charged(id: &str, succeeded: bool) -> Charge {
    Charge {
        id: id.to_owned(),
        succeeded,
    }
}

fn expect_completion(store: &mut MockStore, ending: Ending, accepted: bool) {
    store
        .expect_complete()
        .withf(move |_, lease, e, _| *e == ending && lease.generation == Generation::new(5))
        .times(1)
        .returning(move |_, _, _, _| ready(Ok(accepted)));
}

async fn work(store: &MockStore, provider: &MockProvider, op: &DueOperation) -> Worked {
    work_once(store, provider, &clock(1), &settings(), op)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_charge_ends_succeeded_with_its_payment() {
    let mut store = store_claiming();
    expect_completion(
        &mut store,
        Ending::Succeeded {
            charge_id: "ch_1".into(),
        },
        true,
    );
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_1", true)));

    let worked = work(&store, &provider, &operation(0)).await;

    assert_eq!(
        worked,
        Worked::Ended(Ending::Succeeded {
            charge_id: "ch_1".into()
        })
    );
}

#[tokio::test]
async fn a_definite_decline_ends_declined() {
    let mut store = store_claiming();
    expect_completion(&mut store, Ending::Declined, true);
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
            charge_id: "ch_3".into(),
        },
        true,
    );
    let mut provider = provider_answering(ProviderAnswer::Unknown("connection reset".into()));
    provider
        .expect_lookup()
        .withf(|key| key == KEY)
        .times(1)
        .returning(|_| ready(Ok(Some(charged("ch_3", true)))));

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
        .withf(|_, lease, attempts, next| {
            lease.generation == Generation::new(5)
                && *attempts == 2
                // The second failed attempt waits twice the first backoff.
                && *next == t0() + TimeDelta::seconds(1) + TimeDelta::seconds(4)
        })
        .times(1)
        .returning(|_, _, _, _| ready(Ok(true)));
    store.expect_complete().never();
    let mut provider = provider_answering(ProviderAnswer::Unknown("503".into()));
    provider
        .expect_lookup()
        .times(1)
        .returning(|_| ready(Ok(None)));

    assert!(matches!(
        work(&store, &provider, &operation(1)).await,
        Worked::RetryAt(_)
    ));
}

#[tokio::test]
async fn the_last_attempt_without_an_answer_ends_needs_review_never_a_new_key() {
    let mut store = store_claiming();
    store.expect_retry_later().never();
    expect_completion(&mut store, Ending::NeedsReview, true);
    let mut provider = provider_answering(ProviderAnswer::Unknown("timeout".into()));
    provider
        .expect_lookup()
        .times(1)
        .returning(|_| ready(Err("timeout".into())));

    assert_eq!(
        work(&store, &provider, &operation(2)).await,
        Worked::Ended(Ending::NeedsReview)
    );
}

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
    expect_completion(&mut store, Ending::Declined, false);
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
        .withf(|_, lease| lease.expires_at == t0() + TimeDelta::seconds(20 + 30))
        .times(1)
        .returning(|_, _| ready(Ok(false)));
    store.expect_complete().never();
    store.expect_retry_later().never();
    let provider = provider_answering(ProviderAnswer::Definite(charged("ch_5", true)));

    // The provider call took 20 of the lease's 30 s: the extension is due.
    let worked = work_once(&store, &provider, &clock(20), &settings(), &operation(0))
        .await
        .unwrap();

    assert_eq!(worked, Worked::LeaseLost);
}

#[tokio::test]
async fn a_store_failure_on_the_claim_is_reported() {
    let mut store = MockStore::new();
    store
        .expect_claim()
        .times(1)
        .returning(|_, _, _, _| ready(Err(StoreError::ConnectionLost)));

    let result = work_once(
        &store,
        &MockProvider::new(),
        &clock(1),
        &settings(),
        &operation(0),
    )
    .await;

    assert!(
        matches!(result, Err(StoreError::ConnectionLost)),
        "{result:?}"
    );
}
