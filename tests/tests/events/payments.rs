//! Orders created, captured and refunded in several parts at once, then relayed by three
//! relays in small batches, one killed in the middle of a batch and another killed and
//! restarted: an independent reader of the stream finds per order its
//! creation before its capture before every refund, each once, the refunds within the
//! capture; the shipments consumer counts the payment events it does not handle
//! (`docs/events.md#payment-events`).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use tests::{
    Api, History, PauseDir, ProviderStandIn, Service, ServiceOptions, capture_json, order_json,
    refund_json, reserve_port, spread, token, wait_until,
};

use crate::ordering::{order_of, stream_in_order};
use crate::support::Rig;

const ORDERS: usize = 120;
const CAPTURED: u64 = 1500;
/// Each order's refunds, sent at once after its capture succeeded.
const REFUNDS: [u32; 3] = [400, 500, 600];

/// Polls the operation at `location` until it is no longer pending; its state then.
fn ended(api: &Api, bearer: &str, location: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let status = api.get(location, Some(bearer)).json();
        let state = status["state"].as_str().unwrap_or_default().to_owned();
        if state != "pending" || Instant::now() > deadline {
            return state;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Creates, captures and, once captured, refunds `n` orders, 8 clients at a time over
/// `base_urls`, recorded in `history`: every status seen.
async fn pay_and_refund(
    history: &History,
    base_urls: Vec<String>,
    prefix: &str,
    n: usize,
) -> Vec<u16> {
    let (prefix, history) = (prefix.to_owned(), history.clone());
    let bearer = token(1, 1, tests::ALL_PERMISSIONS);
    spread(base_urls, n, 8, move |api, i| {
        let api = &api.recording(&history);
        let reference = format!("{prefix}-{i}");
        let created = api.create(&bearer, &reference, &order_json(&reference, "SKU-1", 1));
        let order = created.json()["orderId"].as_str().unwrap().to_owned();
        let capture = api.capture(
            &bearer,
            &order,
            &format!("p-{reference}"),
            &capture_json(1500, "JPY"),
        );
        let location = capture.header("location").unwrap();
        assert_eq!(ended(api, &bearer, &location), "succeeded");
        let mut statuses = vec![created.status, capture.status];
        std::thread::scope(|parts| {
            let refunds: Vec<_> = REFUNDS
                .iter()
                .map(|amount| {
                    let (bearer, order) = (&bearer, &order);
                    let key = format!("r{amount}-{reference}");
                    parts.spawn(move || {
                        let body = refund_json(*amount, "returned");
                        api.refund(bearer, order, &key, &body).status
                    })
                })
                .collect();
            statuses.extend(refunds.into_iter().map(|r| r.join().unwrap()));
        });
        statuses
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_orders_payment_events_follow_its_creation_in_commit_order_through_relays_that_die() {
    let rig = Rig::new().await;
    let provider = ProviderStandIn::start();
    // The orders are paid and refunded while nothing relays, so the relays later meet a
    // backlog where an order's events sit in different batches, claimed at once.
    let (p, q) = (rig.working(&provider, &[]), rig.working(&provider, &[]));
    let statuses = pay_and_refund(
        &rig.history,
        vec![p.base_url().to_owned(), q.base_url().to_owned()],
        "P",
        ORDERS,
    )
    .await;
    assert_eq!(statuses.len(), ORDERS * 5);
    assert!(
        statuses.chunks(5).all(|s| s == [201, 202, 202, 202, 202]),
        "every create 201, every capture and refund accepted"
    );
    let operations = i64::try_from(ORDERS * 4).unwrap();
    wait_until(
        Duration::from_secs(120),
        "every operation succeeded",
        || async {
            rig.db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await
        },
        |succeeded| *succeeded == operations,
    )
    .await;
    drop((p, q));

    let port = reserve_port();
    let metrics_address = format!("127.0.0.1:{}", port.get());
    let _consumer = Service::start_command(
        &rig.options(&[("METRICS_ADDR", &metrics_address)]),
        &["consume", "shipments"],
        "consumer started",
    );
    // Relay A holds its first batch between JetStream's acks and its marks, and dies
    // there; B dies and comes back while C relays.
    let small_batches = [("OUTBOX_BATCH", "16")];
    let relay =
        |options: &ServiceOptions| Service::start_command(options, &["relay"], "relay started");
    let held = PauseDir::new();
    held.arm("relay-acked");
    let mut a_options = rig.options(&small_batches);
    a_options.pause_dir = Some(held.path().to_owned());
    let mut a = relay(&a_options);
    let mut b = relay(&rig.options(&small_batches));
    let _c = relay(&rig.options(&small_batches));
    held.wait_until_reached("relay-acked");
    a.kill();
    b.kill();
    let _b_again = relay(&rig.options(&small_batches));
    rig.wait_until_published(Duration::from_secs(120)).await;

    let documents = stream_in_order(&rig.nats.url()).await;
    let mut seen: HashMap<String, Vec<(String, u64, u64)>> = HashMap::new();
    for document in &documents {
        seen.entry(order_of(document).to_owned())
            .or_default()
            .push((
                document["type"].as_str().unwrap().to_owned(),
                document["sequence"].as_u64().unwrap(),
                document["amount"].as_u64().unwrap_or(0),
            ));
    }
    assert_eq!(seen.len(), ORDERS, "every order in the stream");
    for (order, events) in &seen {
        let types: Vec<&str> = events.iter().map(|(t, _, _)| t.as_str()).collect();
        assert_eq!(
            types,
            [
                "orders.created.v1",
                "payments.captured.v1",
                "payments.refunded.v1",
                "payments.refunded.v1",
                "payments.refunded.v1"
            ],
            "order {order}: its events in stream order"
        );
        assert!(
            events.windows(2).all(|pair| pair[0].1 < pair[1].1),
            "order {order}: sequences rise in stream order: {events:?}"
        );
        let refunded: u64 = events[2..].iter().map(|(_, _, amount)| amount).sum();
        assert!(
            events[1].2 == CAPTURED && refunded <= CAPTURED,
            "{events:?}"
        );
    }
    let ids: HashSet<&str> = documents
        .iter()
        .map(|d| d["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(
        (documents.len(), ids.len()),
        (ORDERS * 5, ORDERS * 5),
        "each event once"
    );

    let metrics = Api::new(&format!("http://{metrics_address}"));
    for (event_type, at_least) in [
        ("payments.captured.v1", ORDERS),
        ("payments.refunded.v1", ORDERS * 3),
    ] {
        let counted = wait_until(
            Duration::from_secs(60),
            "the consumer counted the payment events it ignores",
            || async {
                metrics
                    .labelled_metric(
                        "events_ignored_total",
                        &format!(r#"consumer="shipments",type="{event_type}""#),
                    )
                    .unwrap_or(0.0)
            },
            |count| *count >= f64::from(u32::try_from(at_least).unwrap()),
        )
        .await;
        eprintln!("{event_type}: {counted} ignored by the shipments consumer");
    }
    rig.wait_for("one shipment per order", |c| {
        c.shipments == i64::try_from(ORDERS).unwrap()
    })
    .await;
    drop(provider);
    rig.finish().await;
}
