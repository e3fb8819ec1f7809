//! Captures accepted in one batch each keep their own request's trace
//! (`docs/storage.md#batched-operations`): the operation's trace row, which every attempt
//! continues, is its caller's, never the trace of the request that drove the batch.

use tests::{ALL_PERMISSIONS, Api, ProviderStandIn, TestDb, capture_json, token};

use crate::across_lease::working_server;
use crate::support::{create_with, exporting_to};
use tests::otlp::OtlpReceiver;

const CAPTURES: &str = r#"operation="payments.capture.v1""#;
/// Requests sent at once in a round; rounds until a batch of several formed.
const WIDTH: usize = 16;
const ROUNDS: usize = 20;

#[tokio::test]
async fn captures_accepted_in_one_batch_each_keep_their_own_requests_trace() {
    let db = TestDb::create().await;
    let provider = ProviderStandIn::start();
    let receiver = OtlpReceiver::start().unwrap();
    let server = working_server(&db, &provider, exporting_to(&receiver, "orders-api"));
    let api = Api::new(server.base_url());
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    let mut batched = 0.0;
    for round in 0..ROUNDS {
        let orders: Vec<String> = (0..WIDTH)
            .map(|n| {
                let created = create_with(&api, &format!("order-{round}-{n}"), &[]);
                assert_eq!(created.status, 201);
                created.json()["orderId"].as_str().unwrap().to_owned()
            })
            .collect();
        let base = server.base_url();
        let accepted: Vec<(String, String)> = std::thread::scope(|scope| {
            let sent: Vec<_> = orders
                .iter()
                .enumerate()
                .map(|(n, order)| {
                    let (bearer, base) = (&bearer, &base);
                    scope.spawn(move || {
                        let trace = format!("{:032x}", round * WIDTH + n + 1);
                        let traceparent = format!("00-{trace}-00f067aa0ba902b7-01");
                        let reply = Api::new(base).send(
                            "POST",
                            &format!("/api/orders/{order}/payments"),
                            &[
                                ("authorization", bearer.as_bytes()),
                                ("idempotency-key", format!("pay-{round}-{n}").as_bytes()),
                                ("content-type", b"application/json"),
                                ("traceparent", traceparent.as_bytes()),
                            ],
                            capture_json(1500, "JPY").as_bytes(),
                        );
                        assert_eq!(reply.status, 202, "{:?}", reply.code());
                        let id = reply.json()["operationId"].as_str().unwrap().to_owned();
                        (id, trace)
                    })
                })
                .collect();
            sent.into_iter().map(|s| s.join().unwrap()).collect()
        });
        for (id, trace) in &accepted {
            let own = format!(
                "SELECT COUNT(*) AS n FROM operation_traces WHERE operation_id = UNHEX('{}') \
                 AND trace_context LIKE '00-{trace}-%'",
                id.replace('-', "")
            );
            assert_eq!(
                db.count(&own).await,
                1,
                "operation {id}: its caller's trace"
            );
        }
        batched = api
            .labelled_metric("batch_size_count", CAPTURES)
            .unwrap_or(0.0);
        if batched > 0.0 {
            break;
        }
    }
    eprintln!("{batched} batches of two or more captures");
    assert!(
        batched > 0.0,
        "no batch of captures formed in {ROUNDS} rounds"
    );
    drop(server);
    drop(provider);
    db.drop_database().await;
}
