//! Orders created and at once cancelled, three relays (one killed in the middle of a batch,
//! another killed and restarted while orders come in): an independent reader of the stream
//! finds every order's creation before its cancel, each once, and the consumer ends every
//! shipment cancelled (`docs/events.md#order-of-events`).

use std::collections::HashMap;
use std::time::Duration;

use tests::{Broker, PauseDir, Service, cancel_json, token, wait_until};

use crate::support::{Rig, create_and_cancel_orders, create_orders};

const ORDERS: usize = 2000;

/// Every message of `ORDERS` in stream order, as documents, read by a client of its own.
pub(crate) async fn stream_in_order(url: &str) -> Vec<serde_json::Value> {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let mut stream = js.get_stream("ORDERS").await.unwrap();
    let state = stream.info().await.unwrap().state.clone();
    let mut documents = Vec::new();
    for sequence in state.first_sequence..=state.last_sequence {
        let message = stream.get_raw_message(sequence).await.unwrap();
        documents.push(serde_json::from_slice(&message.payload).unwrap());
    }
    documents
}

/// The order an event is about: an order's own events carry the order, a payment's its id.
pub(crate) fn order_of(document: &serde_json::Value) -> &str {
    document["order"]["orderId"]
        .as_str()
        .or_else(|| document["orderId"].as_str())
        .unwrap()
}

/// Each order's events in `documents` (the stream's order), as `(type, sequence)`.
pub(crate) fn events_per_order(
    documents: &[serde_json::Value],
) -> HashMap<String, Vec<(String, u64)>> {
    let mut seen: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for document in documents {
        seen.entry(order_of(document).to_owned())
            .or_default()
            .push((
                document["type"].as_str().unwrap().to_owned(),
                document["sequence"].as_u64().unwrap(),
            ));
    }
    seen
}

/// Counts of one event type in the outbox, in all and published.
async fn events<B: Broker>(rig: &Rig<B>, event_type: &str) -> (i64, i64) {
    let hex = tests::hex(event_type);
    let of_type = format!("FROM outbox WHERE event_type = X'{hex}'");
    (
        rig.db
            .count(&format!("SELECT COUNT(*) AS n {of_type}"))
            .await,
        rig.db
            .count(&format!(
                "SELECT COUNT(*) AS n {of_type} AND published_at IS NOT NULL"
            ))
            .await,
    )
}

/// The created and the cancelled events, each `(in the outbox, published)`, and the
/// shipments the consumer cancelled.
pub(crate) async fn settlement<B: Broker>(rig: &Rig<B>) -> ((i64, i64), (i64, i64), i64) {
    (
        events(rig, "orders.created.v1").await,
        events(rig, "orders.cancelled.v1").await,
        rig.db
            .count("SELECT COUNT(*) AS n FROM shipments WHERE state = 'CANCELLED'")
            .await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_orders_creation_reaches_the_stream_before_its_cancel_through_relays_that_die() {
    let rig = Rig::new().await;
    // Relay A holds its first batch between JetStream's acks and its marks, and dies there.
    let held = PauseDir::new();
    held.arm("relay-acked");
    let mut a_options = rig.options(&[]);
    a_options.pause_dir = Some(held.path().to_owned());
    let mut a = Service::start(&a_options);
    a.wait_for_log("relay started").unwrap();
    let mut b = rig.serve(&[]);
    let c = rig.serve(&[]);
    let _consumer = rig.consumer();
    let urls = [b.base_url().to_owned(), c.base_url().to_owned()];

    let first = create_and_cancel_orders(&rig.history, &urls, "O1", ORDERS / 2, 8);
    let statuses = {
        let first = tokio::spawn(first);
        held.wait_until_reached("relay-acked");
        a.kill();
        let mut statuses = first.await.unwrap();
        // B dies and comes back while the second half comes in through C.
        let second = tokio::spawn(create_and_cancel_orders(
            &rig.history,
            &[urls[1].clone()],
            "O2",
            ORDERS / 2,
            8,
        ));
        b.kill();
        let _b_again = rig.serve(&[]);
        let _a_again = rig.serve(&[]);
        statuses.extend(second.await.unwrap());
        statuses
    };
    assert_eq!(statuses.len(), ORDERS * 2);
    assert!(
        statuses.chunks(2).all(|pair| pair == [201, 200]),
        "every create 201, every cancel 200"
    );

    let orders = i64::try_from(ORDERS).unwrap();
    let wanted = ((orders, orders), (orders, orders), orders);
    wait_until(
        Duration::from_secs(120),
        "(created, published), (cancelled, published), cancelled shipments all settled",
        || settlement(&rig),
        |seen| *seen == wanted,
    )
    .await;
    assert_eq!(
        rig.counts().await.shipments,
        orders,
        "one shipment per order"
    );

    let documents = stream_in_order(&rig.nats.url()).await;
    let seen = events_per_order(&documents);
    assert_eq!(seen.len(), ORDERS, "every order in the stream");
    for (order, events) in &seen {
        assert_eq!(
            events,
            &[
                ("orders.created.v1".to_owned(), 1),
                ("orders.cancelled.v1".to_owned(), 2)
            ],
            "order {order}: its events in the stream, in stream order"
        );
    }
    assert_eq!(documents.len(), ORDERS * 2, "each event once");
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_of_a_shipped_order_leaves_the_shipment_alone_and_says_so() {
    let rig = Rig::new().await;
    let server = rig.serve(&[]);
    let consumer = rig.consumer();
    let statuses = create_orders(&rig.history, &[server.base_url().to_owned()], "S", 1, 1).await;
    assert_eq!(statuses, [201]);
    rig.wait_for("the shipment requested", |c| c.shipments == 1)
        .await;
    rig.db
        .run_sql("UPDATE shipments SET state = 'SHIPPED'")
        .await;

    let bearer = token(1, 1, "orders:cancel");
    let order = rig.db.order_ids(1, "S-0").await[0].to_string();
    let api = tests::Api::new(server.base_url());
    assert_eq!(
        api.cancel(&bearer, &order, "late", &cancel_json("too late"))
            .status,
        200,
        "the order is cancelled: shipping is the consumer's business"
    );
    consumer
        .wait_for_log("event left without effect")
        .unwrap_or_else(|log| panic!("the consumer said nothing:\n{log}"));
    assert_eq!(
        rig.db
            .count("SELECT COUNT(*) AS n FROM shipments WHERE state = 'SHIPPED'")
            .await,
        1,
        "a shipped shipment is left as it is"
    );
    assert!(consumer.log().contains("already shipped"));
    rig.finish().await;
}

/// The rule itself, made certain rather than left to scheduling: relay X claims an order's
/// created event and stops before publishing it; relay Y meets the order's cancel event
/// and leaves it for later, pass after pass, while X holds the earlier one. Once X dies,
/// both go out in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_event_waits_while_another_relay_holds_its_orders_earlier_one() {
    let rig = Rig::new().await;
    let held = PauseDir::new();
    held.arm("relay-claimed");
    let mut x_options = rig.options(&[]);
    x_options.pause_dir = Some(held.path().to_owned());
    let mut x = Service::start(&x_options);
    x.wait_for_log("relay started").unwrap();
    let api = tests::Api::new(x.base_url());
    let bearer = token(1, 1, "orders:create orders:read orders:cancel");
    let created = api.create(&bearer, "HELD-1", &tests::order_json("HELD-1", "SKU-1", 1));
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    held.wait_until_reached("relay-claimed");
    let cancelled = api.cancel(&bearer, &order, "held-cancel", &cancel_json("held"));
    assert_eq!(cancelled.status, 200);

    let y = rig.serve(&[]);
    let y_metrics = tests::Api::new(y.base_url());
    wait_until(
        Duration::from_secs(60),
        "relay Y deferring the cancel, pass after pass",
        || async { y_metrics.metric("outbox_deferred_total") },
        |deferred| *deferred >= 3.0,
    )
    .await;
    assert_eq!(
        rig.nats.stream_messages("ORDERS"),
        0,
        "nothing of the order published while its created event is held"
    );

    x.kill();
    rig.wait_until_published(Duration::from_secs(60)).await;
    let types: Vec<String> = stream_in_order(&rig.nats.url())
        .await
        .iter()
        .map(|d| d["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(types, ["orders.created.v1", "orders.cancelled.v1"]);
    drop(y);
    rig.finish().await;
}
