//! `ensure_stream`: created once, found after, by any number of callers, and changed by
//! them only to take a subject it lacks; `pull_consumer` likewise only widens a filter.

use std::time::Duration;

use adapters::nats::{
    ConsumerSpec, EVERY_EVENT, ORDERS_STREAM, StreamSpec, ensure_stream, pull_consumer,
};
use async_nats::jetstream::consumer::{self, AckPolicy};
use async_nats::jetstream::stream::StorageType;
use tests::PrivateNats;

#[tokio::test]
async fn ensure_stream_creates_the_stream_once_and_then_finds_it() {
    let nats = PrivateNats::start();
    let js = adapters::nats::connect(&nats.url()).await.unwrap();
    // Not JetStream's default (2 minutes): a window not passed on would show.
    let spec = adapters::api::event_stream(Duration::from_secs(7));

    let (first, second) = tokio::join!(ensure_stream(&js, &spec), ensure_stream(&js, &spec));
    let (mut first, _second) = (first.unwrap(), second.unwrap());
    let mut again = ensure_stream(&js, &spec).await.unwrap();

    let info = first.info().await.unwrap();
    assert_eq!(info.config.name, ORDERS_STREAM);
    assert_eq!(info.config.subjects, adapters::api::event_subjects());
    assert_eq!(info.config.storage, StorageType::File);
    assert_eq!(info.config.duplicate_window, Duration::from_secs(7));
    assert_eq!(
        again.info().await.unwrap().created,
        info.created,
        "one stream"
    );

    // A stream that exists is taken as it is, even when configured otherwise.
    let other = adapters::api::event_stream(Duration::from_secs(1));
    let mut existing = ensure_stream(&js, &other).await.unwrap();
    let config = existing.info().await.unwrap().config.clone();
    assert_eq!(config.duplicate_window, Duration::from_secs(7));
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 0);
}

#[tokio::test]
async fn a_stream_and_a_consumer_made_for_created_events_alone_take_the_cancelled_ones_too() {
    let nats = PrivateNats::start();
    let js = adapters::nats::connect(&nats.url()).await.unwrap();
    // As an earlier version made them: one subject, one filter, an operator's window.
    let old = StreamSpec {
        subjects: vec!["orders.created.v1.>".to_owned()],
        ..adapters::api::event_stream(Duration::from_secs(300))
    };
    let stream = ensure_stream(&js, &old).await.unwrap();
    stream
        .create_consumer(consumer::pull::Config {
            durable_name: Some("shipments".to_owned()),
            filter_subject: "orders.created.v1.>".to_owned(),
            ack_policy: AckPolicy::Explicit,
            ack_wait: Duration::from_secs(7),
            ..consumer::pull::Config::default()
        })
        .await
        .unwrap();

    let mut upgraded = ensure_stream(&js, &adapters::api::event_stream(Duration::from_secs(120)))
        .await
        .unwrap();
    let config = upgraded.info().await.unwrap().config.clone();
    assert_eq!(config.subjects, adapters::api::event_subjects());
    assert_eq!(
        config.duplicate_window,
        Duration::from_secs(300),
        "the rest of the configuration is left as it was"
    );

    let spec = ConsumerSpec {
        stream: ORDERS_STREAM.to_owned(),
        durable_name: "shipments".to_owned(),
        filter_subject: EVERY_EVENT.to_owned(),
        ack_wait: Duration::from_secs(30),
        max_deliver: None,
    };
    pull_consumer(&js, &spec).await.unwrap();
    let mut found = upgraded
        .get_consumer::<consumer::pull::Config>("shipments")
        .await
        .unwrap();
    let info = found.info().await.unwrap();
    assert_eq!(info.config.filter_subject, EVERY_EVENT);
    assert_eq!(
        info.config.ack_wait,
        Duration::from_secs(7),
        "only the filter changed"
    );
}
