//! Definite answers: a charge, the same charge again under the same key, a decline.

use adapters::provider::HttpPaymentProvider;
use application::ports::{PaymentProvider, ProviderAnswer};
use tests::{Controls, ProviderStandIn, TempDir};

use crate::{TIMEOUT, capture, new_key, provider};

#[tokio::test]
async fn a_charge_succeeds_and_the_lookup_finds_it() {
    let (stand_in, client) = provider();
    let key = new_key();

    let ProviderAnswer::Definite(charge) = client.charge(&key, &capture(1200), "op-1").await else {
        panic!("no definite answer:\n{}", stand_in.log());
    };

    assert!(charge.succeeded);
    assert!(charge.id.as_str().starts_with("ch_"), "{:?}", charge.id);
    assert_eq!(client.lookup(&key, &capture(1200)).await, Ok(Some(charge)));
    assert_eq!(client.lookup(&new_key(), &capture(1200)).await, Ok(None));
    let counters = stand_in.counters();
    assert_eq!(
        (
            counters.charge_calls,
            counters.lookup_calls,
            counters.charges
        ),
        (1, 2, 1)
    );
}

#[tokio::test]
async fn the_same_key_gets_the_same_charge_and_charges_once() {
    let (stand_in, client) = provider();
    let key = new_key();

    let first = client.charge(&key, &capture(500), "op-1").await;
    let second = client.charge(&key, &capture(500), "op-1").await;

    assert!(matches!(first, ProviderAnswer::Definite(_)), "{first:?}");
    assert_eq!(first, second);
    let counters = stand_in.counters();
    assert_eq!((counters.charge_calls, counters.charges), (2, 1));
}

#[tokio::test]
async fn concurrent_calls_with_one_key_make_one_charge() {
    let (stand_in, client) = provider();
    // Both calls wait inside the stand-in at the same time before charging.
    stand_in.control(&Controls {
        delay_ms: 200,
        ..Controls::default()
    });
    let (key, input) = (new_key(), capture(500));

    let (first, second) = tokio::join!(
        client.charge(&key, &input, "op-1"),
        client.charge(&key, &input, "op-1"),
    );

    assert!(matches!(first, ProviderAnswer::Definite(_)), "{first:?}");
    assert_eq!(first, second);
    assert_eq!(stand_in.counters().charges, 1);
}

#[tokio::test]
async fn a_decline_is_definite_and_kept_under_its_key() {
    let (stand_in, client) = provider();
    stand_in.control(&Controls {
        decline: true,
        ..Controls::default()
    });
    let key = new_key();

    let answer = client.charge(&key, &capture(700), "op-1").await;
    let ProviderAnswer::Definite(declined) = answer else {
        panic!("no definite answer: {answer:?}");
    };
    assert!(!declined.succeeded);

    // Declines stop: the key keeps its answer, a new key succeeds.
    stand_in.control(&Controls::default());
    assert_eq!(
        client.charge(&key, &capture(700), "op-1").await,
        ProviderAnswer::Definite(declined.clone())
    );
    assert_eq!(client.lookup(&key, &capture(700)).await, Ok(Some(declined)));
    let other = client.charge(&new_key(), &capture(700), "op-2").await;
    assert!(
        matches!(other, ProviderAnswer::Definite(ref c) if c.succeeded),
        "{other:?}"
    );
}

#[tokio::test]
async fn another_amount_under_a_charged_key_is_not_a_decline() {
    let (stand_in, client) = provider();
    let key = new_key();
    let first = client.charge(&key, &capture(700), "op-1").await;
    assert!(matches!(first, ProviderAnswer::Definite(_)), "{first:?}");

    // The stand-in answers 409: the client must not take it for a decline.
    let answer = client.charge(&key, &capture(701), "op-1").await;

    assert!(matches!(answer, ProviderAnswer::Unknown(_)), "{answer:?}");
    assert_eq!(stand_in.counters().charges, 1);
}

#[tokio::test]
async fn a_restarted_provider_still_knows_its_charges() {
    let dir = TempDir::new("provider-state");
    let state_file = dir.path().join("charges.json");
    let key = new_key();
    let first = {
        let stand_in = ProviderStandIn::start_with_state_file(&state_file);
        let client = HttpPaymentProvider::new(stand_in.url(), TIMEOUT).unwrap();
        client.charge(&key, &capture(800), "op-1").await
    };
    let ProviderAnswer::Definite(charge) = first else {
        panic!("no definite answer: {first:?}");
    };

    let stand_in = ProviderStandIn::start_with_state_file(&state_file);
    let client = HttpPaymentProvider::new(stand_in.url(), TIMEOUT).unwrap();

    assert_eq!(
        client.lookup(&key, &capture(800)).await,
        Ok(Some(charge.clone()))
    );
    assert_eq!(
        client.charge(&key, &capture(800), "op-1").await,
        ProviderAnswer::Definite(charge)
    );
    assert_eq!(stand_in.counters().charges, 1);
}
