//! The durable pull consumer: what a delivery exposes, and how ack, nak, term and no
//! answer at all decide whether a message comes again.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use adapters::nats::{
    ConsumerSpec, Delivery, EVERY_EVENT, ORDERS_STREAM, PullConsumer, fetch, publish_batch,
    pull_consumer,
};

use tests::PrivateNats;

use crate::{ACK_TIMEOUT, all_acked, events, orders_stream};

/// Long enough that a nak'd message, redelivered at once, comes well inside it on a
/// loaded machine; the unsettled one waits it out.
const ACK_WAIT: Duration = Duration::from_secs(6);

fn shipments() -> ConsumerSpec {
    ConsumerSpec {
        stream: ORDERS_STREAM.to_owned(),
        durable_name: "shipments".to_owned(),
        filter_subject: EVERY_EVENT.to_owned(),
        ack_wait: ACK_WAIT,
        max_deliver: None,
    }
}

/// Fetches until `count` messages came, by message id.
async fn fetch_n(consumer: &PullConsumer, count: usize) -> HashMap<String, Delivery> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut got = HashMap::new();
    while got.len() < count {
        assert!(Instant::now() < deadline, "only {got:?} came");
        for delivery in fetch(consumer, count - got.len(), Duration::from_millis(500))
            .await
            .unwrap()
        {
            let id = delivery.msg_id().unwrap().to_owned();
            assert!(got.insert(id, delivery).is_none(), "delivered twice");
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsettled_messages_come_again_and_termed_or_acked_ones_do_not() {
    let nats = PrivateNats::start();
    let js = orders_stream(&nats.url(), Duration::from_secs(120)).await;
    let consumer = pull_consumer(&js, &shipments()).await.unwrap();
    let batch = events("c", 4);
    all_acked(publish_batch(&js, &batch, ACK_TIMEOUT).await);

    let first_delivered = Instant::now();
    let first = fetch_n(&consumer, 4).await;
    for message in &batch {
        let delivery = &first[&message.msg_id];
        assert_eq!(delivery.payload(), message.payload);
        assert_eq!(delivery.delivered(), Some(1));
    }
    first["c-0"].ack().await.unwrap();
    first["c-1"].term().await.unwrap();
    first["c-2"].nak().await.unwrap();
    // c-3: no answer, as from a consumer that died.

    let nak_sent = Instant::now();
    let nakked = fetch_n(&consumer, 1).await;
    assert!(
        nakked.contains_key("c-2"),
        "the nak'd one first: {nakked:?}"
    );
    assert!(
        nak_sent.elapsed() < ACK_WAIT,
        "a nak is redelivered at once"
    );
    assert_eq!(nakked["c-2"].delivered(), Some(2));
    nakked["c-2"].ack().await.unwrap();

    let again = fetch_n(&consumer, 1).await;
    assert!(
        again.contains_key("c-3"),
        "the unsettled one after the ack wait: {again:?}"
    );
    assert_eq!(again["c-3"].delivered(), Some(2));
    assert!(
        first_delivered.elapsed() >= ACK_WAIT,
        "not before its ack wait ran out"
    );
    again["c-3"].ack().await.unwrap();

    // The same durable consumer, found again, has nothing more: a termed message is
    // not delivered again, not even after another ack wait.
    let consumer = pull_consumer(&js, &shipments()).await.unwrap();
    let late = fetch(&consumer, 10, ACK_WAIT + Duration::from_secs(1))
        .await
        .unwrap();
    assert!(late.is_empty(), "{late:?}");
}
