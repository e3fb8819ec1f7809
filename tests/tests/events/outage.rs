//! The broker down for 20 s under a steady create load: creates never fail, events wait
//! in the outbox, and all go out once the broker is back.

use std::time::{Duration, Instant};

use tests::{Api, wait_until};

use crate::support::{Rig, create_orders};

/// `outbox_pending` as the server's metrics say.
fn pending(api: &Api) -> f64 {
    api.metric("outbox_pending")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_go_on_while_the_broker_is_down_and_the_outbox_drains_after() {
    let mut rig = Rig::new().await;
    // Short ack timeouts: a pass against the stopped broker fails within a second.
    let server = rig.serve(&[("NATS_ACK_TIMEOUT_MS", "1000")]);
    let _consumer = rig.consumer();
    let urls = [server.base_url().to_owned()];
    let api = Api::new(server.base_url());
    assert!(
        create_orders(&rig.history, &urls, "B", 10, 2)
            .await
            .iter()
            .all(|s| *s == 201)
    );
    rig.wait_for("the first events published", |c| c.published == 10)
        .await;

    rig.nats.stop();
    let down = Instant::now();
    let mut created = 10;
    let mut most_pending = 0.0_f64;
    let mut round = 0;
    while down.elapsed() < Duration::from_secs(20) {
        let statuses = create_orders(&rig.history, &urls, &format!("D{round}"), 20, 2).await;
        assert!(
            statuses.iter().all(|s| *s == 201),
            "creates never fail: {statuses:?}"
        );
        created += 20;
        round += 1;
        most_pending = most_pending.max(pending(&api));
    }
    assert!(most_pending >= 20.0, "outbox_pending grew: {most_pending}");
    assert!(rig.counts().await.attempts > 0, "the relay kept trying");

    rig.nats.restart();
    rig.assert_settled(created).await;
    wait_until(
        Duration::from_secs(30),
        "outbox_pending back to 0",
        || async { pending(&api) },
        |pending| *pending <= 0.0,
    )
    .await;
    assert_eq!(rig.nats.stream_messages("ORDERS"), created as u64);
    rig.finish().await;
}
