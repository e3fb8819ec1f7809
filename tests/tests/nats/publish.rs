//! `publish_batch`: a batch acked in order, and JetStream's deduplication by
//! `Nats-Msg-Id` within the duplicate window and not after it.

use std::time::Duration;

use adapters::nats::{ORDERS_STREAM, publish_batch};
use tests::PrivateNats;

use crate::{ACK_TIMEOUT, all_acked, events, orders_stream};

const BATCH: usize = 200;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_the_same_ids_again_is_acked_as_duplicates_and_stores_nothing() {
    let nats = PrivateNats::start();
    let js = orders_stream(&nats.url(), Duration::from_secs(120)).await;
    let batch = events("dedup", BATCH);

    let first = all_acked(publish_batch(&js, &batch, ACK_TIMEOUT).await);
    assert!(first.iter().all(|ack| !ack.duplicate), "{first:?}");
    // One connection keeps the order of its publishes: the results are in the input's.
    let sequences: Vec<u64> = first.iter().map(|ack| ack.sequence).collect();
    assert_eq!(
        sequences,
        (1..=200).collect::<Vec<_>>(),
        "one new message each, in order"
    );
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 200);

    let second = all_acked(publish_batch(&js, &batch, ACK_TIMEOUT).await);
    for (i, (again, before)) in second.iter().zip(&first).enumerate() {
        assert!(again.duplicate, "message {i}: {again:?}");
        assert_eq!(
            again.sequence, before.sequence,
            "message {i}: the stored copy's"
        );
    }
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_duplicate_window_the_same_ids_are_stored_again() {
    let window = Duration::from_millis(100);
    let nats = PrivateNats::start();
    let js = orders_stream(&nats.url(), window).await;
    let batch = events("window", BATCH);
    // Published after the batch, so its id is forgotten after the batch's ids are.
    let probe = events("probe", 1);

    all_acked(publish_batch(&js, &batch, ACK_TIMEOUT).await);
    all_acked(publish_batch(&js, &probe, ACK_TIMEOUT).await);
    // The server forgets ids on its own timer: republish the probe until it is stored
    // anew (a duplicate stores nothing, so only the last round adds a message).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while all_acked(publish_batch(&js, &probe, ACK_TIMEOUT).await)[0].duplicate {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the window never ended"
        );
        tokio::time::sleep(window / 4).await;
    }

    let again = all_acked(publish_batch(&js, &batch, ACK_TIMEOUT).await);
    assert!(again.iter().all(|ack| !ack.duplicate), "{again:?}");
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 2 * 200 + 2);
}
