//! Calls without a definite answer: each is `Unknown`, and the lookup under the same key
//! tells whether the charge was made.

use std::time::Duration;

use adapters::provider::HttpPaymentProvider;
use application::ErrorChain;
use application::ports::{PaymentProvider, ProviderAnswer};
use tests::{Controls, ProviderStandIn};

use crate::{capture, new_key, provider};

/// The bound on waiting for the stand-in to reach a state; only a failure waits this long.
const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_503_before_charging_is_unknown_and_nothing_was_charged() {
    let (stand_in, client) = provider();
    stand_in.control(&Controls {
        fail5xx: 1,
        ..Controls::default()
    });
    let key = new_key();

    let answer = client.charge(&key, &capture(900), "op-1").await;

    let ProviderAnswer::Unknown(no_answer) = answer else {
        panic!("a 503 taken as definite: {answer:?}");
    };
    let reason = ErrorChain(&no_answer).to_string();
    assert!(reason.contains("503"), "{reason}");
    assert!(!reason.contains(&key), "the reason names the key: {reason}");
    assert_eq!(client.lookup(&key, &capture(900)).await, Ok(None));
    assert_eq!(stand_in.counters().charges, 0);

    // The count is used up: the retry under the same key charges.
    let retry = client.charge(&key, &capture(900), "op-1").await;
    assert!(
        matches!(retry, ProviderAnswer::Definite(ref c) if c.succeeded),
        "{retry:?}"
    );
}

#[tokio::test]
async fn a_provider_that_is_down_answers_neither_charge_nor_lookup() {
    let (stand_in, client) = provider();
    stand_in.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let key = new_key();

    assert!(matches!(
        client.charge(&key, &capture(900), "op-1").await,
        ProviderAnswer::Unknown(_)
    ));
    let lookup = client.lookup(&key, &capture(900)).await;

    let reason = ErrorChain(&lookup.unwrap_err()).to_string();
    assert!(!reason.contains(&key), "the reason names the key: {reason}");
    assert_eq!(stand_in.counters().charges, 0);
}

#[tokio::test]
async fn a_connection_dropped_after_charging_is_unknown_and_the_lookup_finds_the_charge() {
    let (stand_in, client) = provider();
    stand_in.control(&Controls {
        drop_after_charge: 1,
        ..Controls::default()
    });
    let key = new_key();

    let answer = client.charge(&key, &capture(1500), "op-1").await;

    let ProviderAnswer::Unknown(no_answer) = answer else {
        panic!("a dropped connection taken as definite: {answer:?}");
    };
    let reason = ErrorChain(&no_answer).to_string();
    assert!(!reason.contains(&key), "the reason names the key: {reason}");
    let found = client
        .lookup(&key, &capture(1500))
        .await
        .unwrap()
        .expect("the charge was made");
    assert!(found.succeeded);
    // The retry under the same key gets that same charge, and charges nothing more.
    assert_eq!(
        client.charge(&key, &capture(1500), "op-1").await,
        ProviderAnswer::Definite(found)
    );
    let counters = stand_in.counters();
    assert_eq!((counters.charge_calls, counters.charges), (2, 1));
}

#[tokio::test]
async fn an_answer_slower_than_the_timeout_is_unknown_and_the_charge_still_happens() {
    let (stand_in, client) = provider();
    let impatient = HttpPaymentProvider::new(stand_in.url(), Duration::from_millis(300)).unwrap();
    let delay = Duration::from_millis(1500);
    stand_in.control(&Controls {
        delay_ms: u64::try_from(delay.as_millis()).unwrap(),
        ..Controls::default()
    });
    let key = new_key();

    let started = std::time::Instant::now();
    let answer = impatient.charge(&key, &capture(300), "op-1").await;
    let waited = started.elapsed();

    let ProviderAnswer::Unknown(no_answer) = answer else {
        panic!("a timeout taken as definite: {answer:?}");
    };
    let reason = ErrorChain(&no_answer).to_string();
    assert!(reason.contains("timeout"), "{reason}");
    assert!(
        waited < delay,
        "the client waited {waited:?}, past its timeout"
    );
    // Hanging up does not stop a provider: the charge is made after the delay. (Whether
    // it is made yet when the client gives up is the machine's timing, so it is not asked.)
    stand_in.wait_for(WAIT, |c| c.charges == 1 && c.in_flight == 0);
    assert!(matches!(client.lookup(&key, &capture(300)).await, Ok(Some(c)) if c.succeeded));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_answer_arrives_when_released() {
    let stand_in = ProviderStandIn::start();
    stand_in.control(&Controls {
        hold: true,
        ..Controls::default()
    });
    // Held answers must not hit the client's timeout here.
    let client = HttpPaymentProvider::new(stand_in.url(), WAIT).unwrap();
    let key = new_key();

    let call = tokio::spawn({
        let (client, key) = (client.clone(), key.clone());
        async move { client.charge(&key, &capture(400), "op-1").await }
    });
    // Charged, answer held: the lookup already sees the charge.
    stand_in.wait_for(WAIT, |c| c.held == 1 && c.charges == 1);
    let made = client
        .lookup(&key, &capture(400))
        .await
        .unwrap()
        .expect("charged before the answer");
    assert!(!call.is_finished());

    assert_eq!(stand_in.release(), 1);

    assert_eq!(call.await.unwrap(), ProviderAnswer::Definite(made));
    assert_eq!(stand_in.counters().held, 0);
}
