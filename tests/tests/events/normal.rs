//! The normal case: every event published once, every order shipped once.

use tests::Service;

use crate::support::{Rig, create_orders};

/// What the relaying processes say they published, and how many of those publishes
/// JetStream acknowledged as copies of events it already had.
fn sent(servers: &[Service]) -> (f64, f64) {
    servers
        .iter()
        .fold((0.0, 0.0), |(published, copies), server| {
            let api = tests::Api::new(server.base_url());
            (
                published + api.metric("outbox_published_total"),
                copies + api.metric("outbox_publish_duplicates_total"),
            )
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relaying_processes_publish_each_of_2000_events_once() {
    let rig = Rig::new().await;
    let servers = [rig.serve(&[]), rig.serve(&[])];
    let _consumer = rig.consumer();
    let urls: Vec<String> = servers.iter().map(|s| s.base_url().to_owned()).collect();

    let statuses = create_orders(&rig.history, &urls, "N", 2000, 8).await;

    assert!(
        statuses.iter().all(|s| *s == 201),
        "every create answers 201"
    );
    let messages = rig.assert_settled(2000).await;
    assert_eq!(messages, 2000, "stream messages = events");
    assert_eq!(rig.counts().await.attempts, 0, "no publish failed");
    // Neither the duplicate window nor the inbox would show a second publish: the relays'
    // own counts do.
    assert_eq!(
        sent(&servers),
        (2000.0, 0.0),
        "each event sent once, by one relay, and never again"
    );
    rig.finish().await;
}
