//! `ensure_stream`: created once, found after, by any number of callers, and never
//! changed by them.

use std::time::Duration;

use adapters::nats::{ORDERS_STREAM, ORDERS_SUBJECTS, StreamSpec, ensure_stream};
use async_nats::jetstream::stream::StorageType;
use tests::PrivateNats;

#[tokio::test]
async fn ensure_stream_creates_the_stream_once_and_then_finds_it() {
    let nats = PrivateNats::start();
    let js = adapters::nats::connect(&nats.url()).await.unwrap();
    let spec = StreamSpec::orders(Duration::from_secs(120));

    let (first, second) = tokio::join!(ensure_stream(&js, &spec), ensure_stream(&js, &spec));
    let (mut first, _second) = (first.unwrap(), second.unwrap());
    let mut again = ensure_stream(&js, &spec).await.unwrap();

    let info = first.info().await.unwrap();
    assert_eq!(info.config.name, ORDERS_STREAM);
    assert_eq!(info.config.subjects, [ORDERS_SUBJECTS]);
    assert_eq!(info.config.storage, StorageType::File);
    assert_eq!(info.config.duplicate_window, Duration::from_secs(120));
    assert_eq!(
        again.info().await.unwrap().created,
        info.created,
        "one stream"
    );

    // A stream that exists is taken as it is, even when configured otherwise.
    let other = StreamSpec::orders(Duration::from_secs(1));
    let mut existing = ensure_stream(&js, &other).await.unwrap();
    let config = existing.info().await.unwrap().config.clone();
    assert_eq!(config.duplicate_window, Duration::from_secs(120));
    assert_eq!(nats.stream_messages(ORDERS_STREAM), 0);
}
