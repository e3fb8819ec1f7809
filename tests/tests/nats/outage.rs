//! A broker outage: publishing fails within its timeout instead of hanging, and the same
//! connection publishes again once the broker is back, with nothing lost or doubled.

use std::time::{Duration, Instant};

use adapters::nats::{
    Context, NatsError, ORDERS_STREAM, OutgoingMessage, PublishAck, REQUEST_TIMEOUT, ensure_stream,
    publish_batch,
};
use application::ErrorChain;
use tests::PrivateNats;

use crate::{ACK_TIMEOUT, all_acked, events, orders_stream};

/// Publishes `batch` until every message is acked, as a relay retries its pending events.
async fn publish_until_acked(js: &Context, batch: &[OutgoingMessage]) -> Vec<PublishAck> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let results = publish_batch(js, batch, Duration::from_millis(500)).await;
        if results.iter().all(Result::is_ok) {
            return all_acked(results);
        }
        assert!(Instant::now() < deadline, "never acked: {:?}", results[0]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_while_the_broker_is_down_fails_in_time_and_works_again_after() {
    let mut nats = PrivateNats::start();
    let js = orders_stream(&nats.url(), Duration::from_secs(120)).await;
    all_acked(publish_batch(&js, &events("before", 10), ACK_TIMEOUT).await);

    nats.stop();
    let during = events("during", 10);
    let timeout = Duration::from_millis(500);
    let started = Instant::now();
    let results = publish_batch(&js, &during, timeout).await;
    let took = started.elapsed();
    // Without its own deadline the batch would wait for the connection's request timeout
    // (or for ever): ending before that is what "in time" means, with seconds to spare.
    assert!(took < REQUEST_TIMEOUT, "took {took:?}");
    for (i, result) in results.iter().enumerate() {
        assert!(
            matches!(result, Err(NatsError::TimedOut(_) | NatsError::Publish(_))),
            "message {i}: {result:?}"
        );
    }

    nats.restart();
    // The failed batch again: whatever of it the client sent on reconnecting is acked as
    // a duplicate, the rest is stored now; either way once.
    publish_until_acked(&js, &during).await;
    all_acked(publish_batch(&js, &events("after", 10), ACK_TIMEOUT).await);
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_started_while_the_broker_is_down_connects_when_it_comes_up() {
    let mut nats = PrivateNats::start();
    let url = nats.url();
    let js = orders_stream(&url, Duration::from_secs(120)).await;
    all_acked(publish_batch(&js, &events("before", 4), ACK_TIMEOUT).await);
    drop(js);
    nats.kill();

    // The broker comes back only after this returns: a connect that waited for it
    // would never return.
    let js = tokio::time::timeout(Duration::from_secs(30), adapters::nats::connect(&url))
        .await
        .expect("connect returned while the broker was down")
        .unwrap();
    let down = events("down", 1);
    let results = publish_batch(&js, &down, Duration::from_millis(300)).await;
    assert!(results[0].is_err(), "{results:?}");

    nats.restart();
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Err(e) =
        ensure_stream(&js, &adapters::api::event_stream(Duration::from_secs(120))).await
    {
        assert!(
            Instant::now() < deadline,
            "never connected: {}",
            ErrorChain(&e)
        );
    }
    publish_until_acked(&js, &down).await;
    publish_until_acked(&js, &events("up", 5)).await;
    assert_eq!(
        nats.stream_messages(ORDERS_STREAM),
        4 + 1 + 5,
        "nothing lost, nothing twice"
    );
}
