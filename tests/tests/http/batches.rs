//! Batched creates between processes (`docs/storage.md#batched-operations`): each process
//! batches the creates that arrive together, and every key is sent to both processes at
//! once, so batches meet keys the other process took, roll back and run their members
//! alone. Every key still makes one order, with one answer.

use std::thread;

use tests::{
    Api, FinalState, History, Reply, Service, ServiceOptions, TestDb, assert_legal, order_json,
    summed_metric,
};

use crate::support::full_token;

const KEYS: usize = 96;
const CLIENTS_PER_PROCESS: usize = 8;
const CREATES: &str = r#"operation="orders.create.v1""#;

#[tokio::test]
async fn batches_meeting_keys_another_process_took_rerun_alone_and_each_key_makes_one_order() {
    let db = TestDb::create().await;
    let mut options = ServiceOptions::new(db.url());
    // One batch in flight per process: the others wait, so batches of several form.
    options.env.push(("BATCH_IN_FLIGHT".into(), "1".into()));
    let services = [Service::start(&options), Service::start(&options)];
    let history = History::new();
    let clients: Vec<Api> = services
        .iter()
        .map(|s| Api::new(s.base_url()).recording(&history))
        .collect();
    let token = full_token();

    // Both processes' clients walk the same keys in the same order.
    let replies: Vec<(usize, Reply)> = thread::scope(|s| {
        let handles: Vec<_> = clients
            .iter()
            .flat_map(|client| (0..CLIENTS_PER_PROCESS).map(move |c| (client, c)))
            .map(|(client, c)| {
                let token = &token;
                s.spawn(move || {
                    (c..KEYS)
                        .step_by(CLIENTS_PER_PROCESS)
                        .map(|k| {
                            let body = order_json(&format!("REF-{k}"), "SKU-1", 1);
                            (k, client.create(token, &format!("batch-{k}"), &body))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });

    for k in 0..KEYS {
        let of_key: Vec<&Reply> = replies
            .iter()
            .filter(|(key, _)| *key == k)
            .map(|(_, reply)| reply)
            .collect();
        assert_eq!(of_key.len(), 2, "key {k}: one request per process");
        for reply in &of_key {
            assert_eq!(reply.status, 201, "key {k}: {:?}", reply.code());
            assert_eq!(reply.body, of_key[0].body, "key {k}: one answer");
        }
        let executed = of_key
            .iter()
            .filter(|r| r.header("idempotent-replayed").is_none())
            .count();
        assert_eq!(executed, 1, "key {k}: one execution");
        assert_eq!(
            db.order_ids(1, &format!("REF-{k}")).await.len(),
            1,
            "key {k}"
        );
    }
    let summed =
        |name, labels: &str| summed_metric(services.iter().map(Service::base_url), name, labels);
    let batches = summed("batch_size_count", CREATES);
    let reruns = summed(
        "batch_reruns_total",
        &format!(r#"{CREATES},cause="key_taken""#),
    );
    eprintln!("{batches} batches of two or more; {reruns} rerun for a taken key");
    assert!(batches > 0.0, "batches of several formed");
    assert!(reruns > 0.0, "some batch met a key the other process took");
    drop(services);
    assert_legal(
        &history,
        &FinalState::read(&db).await,
        "batches_meeting_keys_another_process_took_rerun_alone_and_each_key_makes_one_order",
    );
    db.drop_database().await;
}
