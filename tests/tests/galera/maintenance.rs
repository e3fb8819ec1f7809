//! Work that every process may do at once: migrations at start, and purge. On Galera the
//! named lock that serializes migrations holds per node only, and two purges certify
//! against each other.

use tests::{Api, GaleraCluster, Service, ServiceOptions, order_json, run_command, token};

use crate::support::{Rig, all_at_once, cluster_alone};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_on_three_nodes_migrate_an_empty_database_at_once() {
    let _alone = cluster_alone().await;
    let cluster = GaleraCluster::from_env();
    for round in 0..5 {
        let name = cluster.empty_database().await;
        let urls: Vec<String> = (1..=3).map(|n| cluster.url_of(n, &name)).collect();
        let services = all_at_once(
            urls.into_iter()
                .map(|url| move || Service::start(&ServiceOptions::new(&url)))
                .collect(),
        )
        .await;
        let bearer = token(1, 1, "orders:create");
        for (n, service) in services.iter().enumerate() {
            let reference = format!("M-{round}-{n}");
            let reply = Api::new(service.base_url()).create(
                &bearer,
                &reference,
                &order_json(&reference, "SKU-1", 1),
            );
            assert_eq!(reply.status, 201, "round {round}, process {}", n + 1);
        }
        drop(services);
        cluster.drop_database(&name).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn purges_on_two_nodes_at_once_both_finish_and_delete_everything_expired() {
    let rig = Rig::new().await;
    let api = Api::new(&rig.url(1));
    let bearer = token(1, 1, "orders:create");
    for round in 0..4 {
        for i in 0..300 {
            let reference = format!("P-{round}-{i}");
            let reply = api.create(&bearer, &reference, &order_json(&reference, "SKU-1", 1));
            assert_eq!(reply.status, 201);
        }
        // Everything expired and published long ago.
        rig.run_sql("UPDATE api_idempotency SET expires_at = '2000-01-01 00:00:00'")
            .await;
        rig.run_sql("UPDATE outbox SET published_at = '2000-01-01 00:00:00'")
            .await;
        let urls: Vec<String> = [1, 2]
            .iter()
            .map(|n| rig.cluster.url_on(*n, &rig.db))
            .collect();
        let outcomes = all_at_once(
            urls.into_iter()
                .map(|url| move || run_command(&["purge"], &[("DATABASE_URL", &url)]))
                .collect(),
        )
        .await;
        for (status, _, stderr) in &outcomes {
            assert!(status.success(), "round {round}: a purge failed: {stderr}");
        }
        assert_eq!(
            rig.db
                .count("SELECT COUNT(*) AS n FROM api_idempotency")
                .await,
            0
        );
        assert_eq!(rig.db.count("SELECT COUNT(*) AS n FROM outbox").await, 0);
    }
    // The events are gone by design; so go their orders, for the end-of-test invariant.
    rig.run_sql("DELETE FROM orders").await;
    rig.finish().await;
}
