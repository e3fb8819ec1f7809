//! Processes killed at the worst moments, and a database failure at the relay's marking
//! step: nothing lost, at most a re-send, which JetStream or the inbox absorbs.

use std::time::Duration;

use async_nats::jetstream;
use tests::{FaultProxy, TestServer, url_via, wait_until};

use crate::support::{Rig, create_orders};

const ORDERS: usize = 20;

/// Holds a relay between JetStream's acks and its marking, kills it there, waits out the
/// duplicate window when asked, and starts a new one; returns the rig with every order
/// created, and how many messages the killed relay had sent.
async fn relay_killed_after_the_acks(
    env: &[(&str, &str)],
    wait_out_the_window: bool,
) -> (Rig, u64) {
    let rig = Rig::new().await;
    rig.pause.arm("relay-acked");
    let mut first = rig.serve(env);
    let _consumer = rig.consumer();
    let statuses =
        create_orders(&rig.history, &[first.base_url().to_owned()], "K", ORDERS, 4).await;
    assert!(statuses.iter().all(|s| *s == 201));
    rig.pause.wait_until_reached("relay-acked");
    let acked = rig.nats.stream_messages("ORDERS");
    assert!(acked > 0, "the held batch is in the stream");
    assert_eq!(rig.counts().await.published, 0, "and not yet marked");
    first.kill();
    if wait_out_the_window {
        until_the_stream_forgot_its_ids(&rig.nats.url()).await;
    }

    let _second = rig.serve(env);
    rig.assert_settled(ORDERS as i64).await;
    (rig, acked)
}

/// Sends the stream's newest message again, with its id, as a restarted relay would, until
/// JetStream stores it instead of calling it a duplicate. Ids leave the window in the order
/// they came, so once the newest has gone every id the stream held has: no wall-clock guess.
async fn until_the_stream_forgot_its_ids(url: &str) {
    let js = jetstream::new(async_nats::connect(url).await.unwrap());
    let mut stream = js.get_stream("ORDERS").await.unwrap();
    let newest = stream.info().await.unwrap().state.last_sequence;
    let message = stream.get_raw_message(newest).await.unwrap();
    wait_until(
        Duration::from_secs(30),
        "the duplicate window past the killed relay's messages",
        || async {
            js.publish_with_headers(
                message.subject.clone(),
                message.headers.clone(),
                message.payload.clone(),
            )
            .await
            .unwrap()
            .await
            .unwrap()
            .duplicate
        },
        |duplicate| !duplicate,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_killed_after_the_acks_sends_again_and_jetstream_drops_the_copies() {
    let (rig, _) = relay_killed_after_the_acks(&[], false).await;
    assert_eq!(
        rig.nats.stream_messages("ORDERS"),
        ORDERS as u64,
        "the batch sent twice is stored once (duplicate window)"
    );
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_duplicate_window_the_copies_reach_the_stream_and_the_inbox_holds() {
    // A 100 ms window, waited out: the new relay sends the held batch again and JetStream
    // stores every copy; only the probe's own copy (of the newest id) may be dropped again.
    let (rig, acked) =
        relay_killed_after_the_acks(&[("NATS_DUPLICATE_WINDOW_MS", "100")], true).await;
    let messages = rig.nats.stream_messages("ORDERS");
    let every_copy = acked + ORDERS as u64;
    assert!(
        (every_copy..=every_copy + 1).contains(&messages),
        "the {acked} held messages went through again: {messages} messages for {ORDERS} events"
    );
    // assert_settled already proved shipments = orders, one per order.
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_killed_after_its_commit_gets_the_event_again_and_ships_once() {
    let rig = Rig::new().await;
    rig.pause.arm("consumer-committed");
    let server = rig.serve(&[]);
    let mut first = rig.consumer();
    let statuses = create_orders(&rig.history, &[server.base_url().to_owned()], "C", 1, 1).await;
    assert_eq!(statuses, [201]);
    rig.pause.wait_until_reached("consumer-committed");
    assert_eq!(
        rig.counts().await.shipments,
        1,
        "committed, not acknowledged"
    );
    first.kill();

    let second = rig.consumer();
    second
        .wait_for_log("duplicate delivery acknowledged")
        .unwrap_or_else(|log| panic!("no redelivery reached the new consumer:\n{log}"));
    rig.assert_settled(1).await;
    rig.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_failure_at_the_marking_loses_and_skips_nothing() {
    let rig = Rig::new().await;
    let proxy = FaultProxy::start(TestServer::from_env().socket_addr());
    let through_proxy = url_via(rig.db.url(), proxy.address());
    rig.pause.arm("relay-acked");
    let server = tests::Service::start(&rig.options_on(&through_proxy, &[]));
    server.wait_for_log("relay started").unwrap();
    let _consumer = rig.consumer();
    let statuses = create_orders(
        &rig.history,
        &[server.base_url().to_owned()],
        "F",
        ORDERS,
        4,
    )
    .await;
    assert!(statuses.iter().all(|s| *s == 201));
    rig.pause.wait_until_reached("relay-acked");

    proxy.cut();
    rig.pause.release_point("relay-acked");
    server
        .wait_for_log("relay pass failed")
        .unwrap_or_else(|log| panic!("the marking did not fail:\n{log}"));
    // The next pass, once the database is back, stops again before its marks: what
    // the failed marking left is visible then, and it marked nothing.
    rig.pause.arm("relay-acked");
    proxy.restore();
    rig.pause.wait_until_reached("relay-acked");
    assert_eq!(
        rig.counts().await.published,
        0,
        "the failed marking marked nothing"
    );
    rig.pause.release_point("relay-acked");

    rig.assert_settled(ORDERS as i64).await;
    assert_eq!(
        rig.nats.stream_messages("ORDERS"),
        ORDERS as u64,
        "at most a re-send, dropped by the duplicate window"
    );
    rig.finish().await;
}
