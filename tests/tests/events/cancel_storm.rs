//! A cancel storm with captures racing it (`docs/storage.md#batched-operations`): 32
//! clients over 200 orders, each order sent a cancel and a capture at once through two
//! processes that batch both, while the relay that carries their events is killed once.
//! No order is both cancelled and charged, and each order's events reach the stream once,
//! in commit order.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use tests::{
    History, PauseDir, ProviderStandIn, Service, cancel_json, capture_json, order_json, spread,
    summed_metric, token, wait_until,
};

use crate::ordering::{events_per_order, stream_in_order};
use crate::support::Rig;

const ORDERS: usize = 200;
const CLIENTS: usize = 32;
const CANCELS: &str = r#"operation="orders.cancel.v1""#;
const CAPTURES: &str = r#"operation="payments.capture.v1""#;

/// The answers one order got: its cancel's status and code, its capture's.
#[derive(Debug)]
struct Race {
    order: String,
    cancel: (u16, Option<String>),
    capture: (u16, Option<String>),
}

/// Sends every order its cancel and its capture, `CLIENTS` at once over `base_urls`:
/// request `2k` and `2k + 1` are order `k`'s two, sent by neighbouring threads, so each
/// pair arrives together; which of the two goes first turns with `k`.
async fn race(history: History, base_urls: Vec<String>, orders: Vec<String>) -> Vec<Race> {
    let bearer = token(1, 1, tests::ALL_PERMISSIONS);
    let answers = spread(base_urls, ORDERS * 2, CLIENTS, move |api, i| {
        let api = api.recording(&history);
        let order = &orders[i / 2];
        let cancels = (i / 2) % 2 == i % 2;
        let reply = if cancels {
            api.cancel(&bearer, order, &format!("c-{order}"), &cancel_json("storm"))
        } else {
            api.capture(
                &bearer,
                order,
                &format!("p-{order}"),
                &capture_json(1500, "JPY"),
            )
        };
        vec![(order.clone(), cancels, (reply.status, reply.code()))]
    })
    .await;
    orders_answers(answers)
}

/// Pairs each order's two answers.
fn orders_answers(answers: Vec<(String, bool, (u16, Option<String>))>) -> Vec<Race> {
    let mut races: HashMap<String, Race> = HashMap::new();
    for (order, cancels, answer) in answers {
        let race = races.entry(order.clone()).or_insert(Race {
            order,
            cancel: (0, None),
            capture: (0, None),
        });
        if cancels {
            race.cancel = answer;
        } else {
            race.capture = answer;
        }
    }
    races.into_values().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_storm_with_captures_racing_it_never_cancels_a_charged_order() {
    let rig = Rig::new().await;
    let provider = ProviderStandIn::start();
    // Serving processes that work captures and relay nothing; one batch in flight each, so
    // the requests that arrive together go as batches.
    let batching = [("BATCH_IN_FLIGHT", "1")];
    let (p, q) = (
        rig.working(&provider, &batching),
        rig.working(&provider, &batching),
    );
    let base_urls = vec![p.base_url().to_owned(), q.base_url().to_owned()];
    // Relay A holds its first batch between JetStream's acks and its marks, and is
    // killed there while the storm goes on; B carries the rest.
    let held = PauseDir::new();
    held.arm("relay-acked");
    let mut a_options = rig.options(&[("OUTBOX_BATCH", "16")]);
    a_options.pause_dir = Some(held.path().to_owned());
    let mut a = Service::start_command(&a_options, &["relay"], "relay started");

    let created = {
        let history = rig.history.clone();
        let bearer = token(1, 1, tests::ALL_PERMISSIONS);
        spread(base_urls.clone(), ORDERS, CLIENTS, move |api, i| {
            let reference = format!("STORM-{i}");
            let reply = api.recording(&history).create(
                &bearer,
                &reference,
                &order_json(&reference, "SKU-1", 1),
            );
            assert_eq!(reply.status, 201, "{:?}", reply.code());
            vec![reply.json()["orderId"].as_str().unwrap().to_owned()]
        })
        .await
    };
    let storm = tokio::spawn(race(rig.history.clone(), base_urls, created));
    held.wait_until_reached("relay-acked");
    a.kill();
    let _b = Service::start_command(&rig.options(&[]), &["relay"], "relay started");
    let races = storm.await.unwrap();

    assert_eq!(races.len(), ORDERS);
    let mut cancelled = 0;
    for race in &races {
        match (&race.cancel, &race.capture) {
            ((200, None), (409, Some(code))) => {
                assert_eq!(code, "order_cancelled", "{race:?}");
                cancelled += 1;
            }
            ((409, Some(code)), (202, None)) => {
                assert_eq!(code, "order_not_cancellable", "{race:?}");
            }
            _ => panic!("one of the two succeeds, the other is refused: {race:?}"),
        }
    }
    let captured = ORDERS - cancelled;
    eprintln!("{cancelled} orders cancelled, {captured} captured");
    wait_until(
        Duration::from_secs(120),
        "every accepted capture succeeded",
        || async {
            rig.db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await
        },
        |succeeded| *succeeded == i64::try_from(captured).unwrap(),
    )
    .await;
    assert_eq!(
        rig.db
            .count(
                "SELECT COUNT(*) AS n FROM orders o JOIN payments p ON p.order_id = o.id \
                 WHERE o.status = 'CANCELLED'"
            )
            .await,
        0,
        "no cancelled order has a payment"
    );
    assert_eq!(
        provider.counters().charges,
        u64::try_from(captured).unwrap(),
        "one charge per captured order, none for a cancelled one"
    );
    let batches = |labels| summed_metric([p.base_url(), q.base_url()], "batch_size_count", labels);
    let (cancel_batches, capture_batches) = (batches(CANCELS), batches(CAPTURES));
    eprintln!("batches of two or more: {cancel_batches} of cancels, {capture_batches} of captures");
    assert!(
        cancel_batches > 0.0 && capture_batches > 0.0,
        "cancels and captures went as batches"
    );

    rig.wait_until_published(Duration::from_secs(120)).await;
    let documents = stream_in_order(&rig.nats.url()).await;
    let seen = events_per_order(&documents);
    assert_eq!(seen.len(), ORDERS, "every order in the stream");
    let wanted: HashSet<&str> = races
        .iter()
        .filter(|r| r.cancel.0 == 200)
        .map(|r| r.order.as_str())
        .collect();
    for (order, events) in &seen {
        let second = if wanted.contains(order.as_str()) {
            "orders.cancelled.v1"
        } else {
            "payments.captured.v1"
        };
        let types: Vec<&str> = events.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            types,
            ["orders.created.v1", second],
            "order {order}: its events in stream order"
        );
        assert!(
            events[0].1 < events[1].1,
            "order {order}: sequences rise in stream order: {events:?}"
        );
    }
    assert_eq!(documents.len(), ORDERS * 2, "each event once");
    drop((p, q, provider));
    rig.finish().await;
}
