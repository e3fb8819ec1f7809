//! A type the shipments consumer does not handle, in the stream beside the order events:
//! acknowledged and counted, never terminated, and the order events after it applied.

use std::time::Duration;

use adapters::api::{event_stream, event_subjects};
use adapters::nats::{connect, ensure_stream};
use async_nats::HeaderMap;
use async_nats::header::NATS_MESSAGE_ID;
use tests::{Api, Service, reserve_port, wait_until};

use crate::support::{Rig, create_orders};

/// A subject the stream carries and no consumer of this service handles.
const OTHER: &str = "tests.other.v1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consumer_acknowledges_and_counts_a_type_it_does_not_handle() {
    let rig = Rig::new().await;
    let js = connect(&rig.nats.url()).await.unwrap();
    let mut spec = event_stream(Duration::from_secs(120));
    spec.subjects.push(format!("{OTHER}.>"));
    ensure_stream(&js, &spec).await.unwrap();
    let mut headers = HeaderMap::new();
    headers.insert(NATS_MESSAGE_ID, "00000000-0000-4000-8000-0000000000aa");
    js.publish_with_headers(
        format!("{OTHER}.1"),
        headers,
        r#"{"eventId":"00000000-0000-4000-8000-0000000000aa","type":"tests.other.v1"}"#.into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();

    let port = reserve_port();
    let address = format!("127.0.0.1:{}", port.get());
    let consumer = Service::start_command(
        &rig.options(&[("METRICS_ADDR", &address)]),
        &["consume", "shipments"],
        "consumer started",
    );
    let server = rig.serve(&[]);
    let statuses = create_orders(&rig.history, &[server.base_url().to_owned()], "I", 3, 1).await;
    assert!(statuses.iter().all(|status| *status == 201), "{statuses:?}");
    rig.wait_for("3 shipments", |counts| counts.shipments == 3)
        .await;

    let metrics = Api::new(&format!("http://{address}"));
    let ignored = wait_until(
        Duration::from_secs(30),
        "the ignored event counted",
        || async {
            metrics.labelled_metric(
                "events_ignored_total",
                &format!(r#"consumer="shipments",type="{OTHER}""#),
            )
        },
        |count| *count == Some(1.0),
    )
    .await;
    assert_eq!(ignored, Some(1.0));
    assert!(
        !consumer.log().contains("poison message terminated"),
        "{}",
        consumer.log()
    );
    // The stream kept every subject it had: the declared types came first.
    let config = js
        .get_stream("ORDERS")
        .await
        .unwrap()
        .cached_info()
        .config
        .clone();
    assert!(event_subjects().iter().all(|s| config.subjects.contains(s)));
    drop(server);
    rig.finish().await;
}
