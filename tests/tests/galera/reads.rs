//! Read-your-write across nodes: an order created through one node is found at once
//! through the others.

use tests::{Api, order_json, token};

use crate::support::Rig;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_created_on_one_node_is_read_at_once_on_the_others() {
    let rig = Rig::new().await;
    let urls: Vec<String> = (1..=3).map(|n| rig.url(n)).collect();
    tokio::task::spawn_blocking(move || {
        let bearer = token(1, 1, "orders:create orders:read");
        let apis: Vec<Api> = urls.iter().map(|u| Api::new(u)).collect();
        for round in 0..500 {
            let reference = format!("R-{round}");
            let created = apis[0].create(&bearer, &reference, &order_json(&reference, "SKU-1", 1));
            assert_eq!(created.status, 201);
            let location = created.header("location").unwrap();
            for (n, api) in apis.iter().enumerate().skip(1) {
                let read = api.get(&location, Some(&bearer));
                assert_eq!(read.status, 200, "round {round}, node {}", n + 1);
            }
        }
    })
    .await
    .unwrap();
    rig.finish().await;
}
