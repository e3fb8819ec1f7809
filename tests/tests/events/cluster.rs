//! The relay and the shipments consumer on a 3-node JetStream cluster, the stream kept on
//! all three, while creates and cancels come in: a node is killed (SIGKILL) and later
//! restarted. Nothing lost, nothing applied twice, each order's events applied
//! in the order of its revisions (`docs/events.md#a-jetstream-cluster`).

use std::time::Duration;

use tests::{NatsCluster, eventually, wait_until};

use crate::ordering::{events_per_order, settlement, stream_in_order};
use crate::support::{Rig, create_and_cancel_orders, create_orders};

/// Per phase (before the kill, while the node is down, after its restart): orders only
/// created, and orders created and at once cancelled.
const CREATES: usize = 150;
const CANCELS: usize = 40;

const CREATED: &str = "orders.created.v1";
const CANCELLED: &str = "orders.cancelled.v1";

/// Asks the stream's leader to step down until a node a client of the service is
/// connected to leads it (each step hands it to one of the other two at random); that node.
async fn lead_from_a_node_with_a_client(cluster: &NatsCluster) -> usize {
    let probe = async_nats::ConnectOptions::new()
        .name("fault-probe")
        .connect(cluster.urls())
        .await
        .unwrap();
    for _ in 0..20 {
        let leader = eventually(Duration::from_secs(30), || async {
            cluster.stream_leader("ORDERS")
        })
        .await
        .expect("the stream has a leader");
        if cluster.unnamed_clients(leader) > 0 {
            return leader;
        }
        probe
            .request("$JS.API.STREAM.LEADER.STEPDOWN.ORDERS", "".into())
            .await
            .unwrap();
        // The old leader may still report itself leader for a moment: wait until it does not.
        eventually(Duration::from_secs(30), || async {
            cluster.stream_leader("ORDERS").filter(|now| *now != leader)
        })
        .await
        .expect("a new leader after the step down");
    }
    panic!("the stream's leader never landed on a node with a client in 20 step downs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_node_killed_and_restarted_under_load_loses_nothing_and_applies_each_event_once_in_order()
 {
    let mut rig = Rig::clustered().await;
    // Short ack timeouts: a batch caught by the kill fails within a second and is retried.
    let server = rig.serve(&[("NATS_ACK_TIMEOUT_MS", "1000")]);
    let consumer = rig.consumer();
    assert_eq!(
        rig.nats.stream_replicas("ORDERS"),
        3,
        "the stream is kept on every node"
    );
    let urls = [server.base_url().to_owned()];
    let history = rig.history.clone();
    let phase = |name: &str| {
        let creates = tokio::spawn(create_orders(&history, &urls, name, CREATES, 4));
        let cancels = tokio::spawn(create_and_cancel_orders(
            &history,
            &urls,
            &format!("{name}C"),
            CANCELS,
            2,
        ));
        async move {
            let mut statuses = creates.await.unwrap();
            statuses.extend(cancels.await.unwrap());
            statuses
        }
    };

    // The stream's leader goes once events flow, while the first phase still comes in;
    // it is first moved to a node the relay or the consumer is connected to, so that one
    // of them has to move to another node too.
    let before = phase("P1");
    rig.wait_for("the first events published", |c| c.published >= 20)
        .await;
    let leader = lead_from_a_node_with_a_client(&rig.nats).await;
    rig.nats.kill(leader);
    let published_at_the_kill = rig.counts().await.published;

    // Down: a new leader is elected among the other two, and the relay goes on with it.
    let down = phase("P2");
    rig.wait_for("events published with the node down", |c| {
        c.published >= published_at_the_kill + 20
    })
    .await;
    rig.nats.restart(leader);
    let after = phase("P3");

    let mut statuses = before.await;
    statuses.extend(down.await);
    statuses.extend(after.await);
    assert!(
        statuses.iter().all(|s| [200, 201].contains(s)),
        "every create 201, every cancel 200: {statuses:?}"
    );

    let created = i64::try_from(3 * (CREATES + CANCELS)).unwrap();
    let cancelled = i64::try_from(3 * CANCELS).unwrap();
    let wanted = ((created, created), (cancelled, cancelled), cancelled);
    wait_until(
        Duration::from_secs(120),
        "(created, published), (cancelled, published), cancelled shipments all settled",
        || settlement(&rig),
        |seen| *seen == wanted,
    )
    .await;
    let counts = rig
        .wait_for("a shipment per order", |c| c.shipments == created)
        .await;
    eprintln!("counts: {counts:?}");

    // Nothing lost, nothing twice on the stream: each order's events, each once, in order.
    let node = (leader + 1) % 3;
    let documents = stream_in_order(&rig.nats.urls()[node]).await;
    let per_order = events_per_order(&documents);
    assert_eq!(
        per_order.len(),
        3 * (CREATES + CANCELS),
        "every order in the stream"
    );
    let with_cancel = per_order
        .values()
        .filter(|events| events.len() == 2)
        .count();
    for (order, events) in &per_order {
        let expected: &[(&str, u64)] = if events.len() == 2 {
            &[(CREATED, 1), (CANCELLED, 2)]
        } else {
            &[(CREATED, 1)]
        };
        let events: Vec<(&str, u64)> = events.iter().map(|(t, s)| (t.as_str(), *s)).collect();
        assert_eq!(
            events, expected,
            "order {order}: its events in stream order"
        );
    }
    assert_eq!(with_cancel, 3 * CANCELS, "every cancel in the stream");
    assert_eq!(
        i64::try_from(documents.len()).unwrap(),
        counts.events,
        "each event once in the stream"
    );

    // Applied once each: an inbox row per event, one shipment per order.
    assert_eq!(
        rig.db
            .count("SELECT COUNT(*) AS n FROM inbox WHERE consumer = 'shipments'")
            .await,
        counts.events,
        "an inbox row per event"
    );
    assert_eq!(
        counts.shipped_orders, counts.shipments,
        "one shipment per order"
    );

    // Applied in order: every shipment was written by its order's creation (a cancel
    // applied first writes the row itself), and every cancel came after it.
    assert_eq!(
        rig.db
            .count(&format!(
                "SELECT COUNT(*) AS n FROM shipments s JOIN outbox o ON o.event_id = s.event_id \
                 WHERE o.event_type = X'{}' AND o.ordering_seq = 1",
                tests::hex(CREATED)
            ))
            .await,
        created,
        "each shipment written by its order's creation"
    );
    assert_eq!(
        rig.db
            .count("SELECT COUNT(*) AS n FROM shipments WHERE state = 'CANCELLED' AND order_sequence = 2")
            .await,
        cancelled,
        "each cancel applied after its creation"
    );
    assert!(
        !consumer
            .log()
            .contains("an older event than one already applied"),
        "no event applied after a newer one of its order"
    );
    rig.finish().await;
}
