//! The normal case: every event published once, every order shipped once.

use crate::support::{Rig, create_orders};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relaying_processes_publish_each_of_2000_events_once() {
    let rig = Rig::new().await;
    let servers = [rig.serve(&[]), rig.serve(&[])];
    let _consumer = rig.consumer();
    let urls: Vec<String> = servers.iter().map(|s| s.base_url().to_owned()).collect();

    let statuses = create_orders(&urls, "N", 2000, 8).await;

    assert!(
        statuses.iter().all(|s| *s == 201),
        "every create answers 201"
    );
    let messages = rig.assert_settled(2000).await;
    assert_eq!(
        messages, 2000,
        "stream messages = events: each published once"
    );
    assert_eq!(rig.counts().await.attempts, 0, "no publish failed");
    rig.finish().await;
}
