//! Refunds end to end (`docs/long-running-operations.md#refunds`): accepted against the
//! order's succeeded capture, worked by the same workers as captures, and never accepted
//! beyond what was captured, however many processes take them at once.

use std::collections::HashMap;

use tests::{
    Controls, History, Reply, Service, ServiceOptions, refund_json, spread, summed_metric,
};

use crate::support::{AMOUNT, Accepted, Scenario, full_token};

impl Scenario {
    /// Creates the order `reference`, has its capture worked by `worker` to success; the
    /// order's id.
    async fn captured_order(&self, reference: &str) -> String {
        let capture = self.accept(reference);
        let row = self.wait_until_ended(&capture).await;
        assert_eq!(row.state, "SUCCEEDED", "the capture of {reference}");
        self.status(&capture)["orderId"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// The accepted refund of a `202`.
fn accepted(reply: &Reply) -> Accepted {
    assert_eq!(
        reply.status,
        202,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let operation_id = reply.json()["operationId"].as_str().unwrap().to_owned();
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/operations/{operation_id}"))
    );
    Accepted { operation_id }
}

#[tokio::test]
async fn a_refund_is_worked_like_a_capture_and_going_over_stays_the_keys_answer() {
    let scenario = Scenario::new().await;
    let _worker = scenario.serve_worker(None, &[]);
    let order = scenario.captured_order("R-1").await;
    let uncaptured = {
        let created =
            scenario
                .api
                .create(&full_token(), "R-2", &tests::order_json("R-2", "SKU-1", 1));
        created.json()["orderId"].as_str().unwrap().to_owned()
    };
    let api = &scenario.api;
    let refund = |order: &str, key: &str, amount| {
        api.refund(&full_token(), order, key, &refund_json(amount, "damaged"))
    };
    let operations = || async {
        scenario
            .db
            .count("SELECT COUNT(*) AS n FROM operations")
            .await
    };

    assert_eq!(
        refund("999999", "re-none", 100).status_code(),
        (404, Some("not_found".to_owned()))
    );
    assert_eq!(
        refund(&uncaptured, "re-early", 100).status_code(),
        (409, Some("order_not_refundable".to_owned()))
    );
    assert_eq!(operations().await, 1, "the capture alone");

    // Both refunds are declined by the provider, after the third met what they left.
    scenario.provider.control(&Controls {
        decline: true,
        hold: true,
        ..Controls::default()
    });
    let seven = accepted(&refund(&order, "re-700", 700));
    let five = accepted(&refund(&order, "re-500", 500));
    let over = refund(&order, "re-over", 400);
    assert_eq!(
        over.status_code(),
        (409, Some("refund_exceeds_captured".to_owned()))
    );
    scenario.provider.control(&Controls {
        decline: true,
        ..Controls::default()
    });
    let _ = scenario.provider.release();
    for declined in [&seven, &five] {
        assert_eq!(scenario.wait_until_ended(declined).await.state, "DECLINED");
        assert_eq!(scenario.status(declined)["state"], "declined");
    }
    let again = refund(&order, "re-over", 400);
    assert_eq!(
        (again.status, &again.body),
        (409, &over.body),
        "the stored answer, byte for byte, though 1500 is free again"
    );
    assert_eq!(again.header("idempotent-replayed").as_deref(), Some("true"));

    scenario.provider.control(&Controls::default());
    let four = accepted(&refund(&order, "re-400", 400));
    assert_eq!(scenario.wait_until_ended(&four).await.state, "SUCCEEDED");
    let status = scenario.status(&four);
    assert_eq!(
        (&status["type"], &status["state"]),
        (&"payments.refund.v1".into(), &"succeeded".into())
    );
    let refunded = &status["refund"];
    assert!(
        refunded["providerRefundId"]
            .as_str()
            .unwrap()
            .starts_with("re_")
    );
    assert!(refunded["refundId"].as_str().is_some());
    assert_eq!(
        (&refunded["amount"], &refunded["currency"]),
        (&400.into(), &"JPY".into())
    );
    let counters = scenario.provider.counters();
    assert_eq!((counters.refund_calls, counters.refunds), (3, 3));
    assert_eq!(
        scenario
            .db
            .count("SELECT CAST(SUM(refunded) AS SIGNED) AS n FROM payments")
            .await,
        400
    );
    scenario.finish().await;
}

/// Orders in the storm, refunds sent to them, and the clients sending them.
const ORDERS: usize = 8;
const REFUNDS: usize = 240;
const CLIENTS: usize = 12;

/// Refund `i`'s order and amount, from 100 to 500: spread evenly and reproducibly.
fn pick(i: usize, orders: usize) -> (usize, u32) {
    let mut x = u64::try_from(i)
        .unwrap()
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        | 1;
    x ^= x >> 29;
    let order = usize::try_from(x % u64::try_from(orders).unwrap()).unwrap();
    (order, 100 + u32::try_from((x >> 17) % 401).unwrap())
}

/// Sends `REFUNDS` refunds of random amounts to random orders, `CLIENTS` clients at once,
/// spread over `base_urls`, recorded in `history`: each `(order, amount, status)`.
async fn refund_storm(
    history: &History,
    base_urls: Vec<String>,
    orders: Vec<String>,
) -> Vec<(String, u32, u16)> {
    let history = history.clone();
    spread(base_urls, REFUNDS, CLIENTS, move |api, i| {
        let api = api.recording(&history);
        let (order, amount) = pick(i, orders.len());
        let order = &orders[order];
        let reply = api.refund(
            &full_token(),
            order,
            &format!("storm-{i}"),
            &refund_json(amount, "storm"),
        );
        if reply.status == 409 {
            assert_eq!(reply.code().as_deref(), Some("refund_exceeds_captured"));
        }
        vec![(order.clone(), amount, reply.status)]
    })
    .await
}

/// Eight captured orders take 240 refunds of 100 to 500 at once through three processes,
/// while a worker carries out the accepted ones: per order, what was accepted adds up to
/// at most the capture and is what the payment keeps reserved, and the provider, which
/// declines a refund beyond its charge, declines none.
#[tokio::test]
async fn concurrent_refunds_over_several_processes_never_accept_more_than_was_captured() {
    let scenario = Scenario::new().await;
    let _worker = scenario.serve_worker(None, &[("WORKER_CONCURRENCY", "4")]);
    let mut orders = Vec::new();
    for i in 0..ORDERS {
        orders.push(scenario.captured_order(&format!("S-{i}")).await);
    }
    // One batch in flight in each of these: refunds that arrive together go as batches.
    let mut batching = ServiceOptions::new(scenario.db.url());
    batching.env.push(("BATCH_IN_FLIGHT".into(), "1".into()));
    let more: Vec<Service> = (0..2).map(|_| Service::start(&batching)).collect();
    let base_urls = std::iter::once(scenario.accepting.base_url())
        .chain(more.iter().map(Service::base_url))
        .map(str::to_owned)
        .collect();

    let sent = refund_storm(&scenario.history, base_urls, orders.clone()).await;
    let mut accepted: HashMap<&str, u32> = HashMap::new();
    for (order, amount, status) in &sent {
        assert!(matches!(status, 202 | 409), "{status}");
        if *status == 202 {
            *accepted.entry(order.as_str()).or_default() += amount;
        }
    }
    let refused = sent.iter().filter(|(_, _, status)| *status == 409).count();
    eprintln!(
        "refunds accepted per order: {accepted:?}; refused {refused} of {}",
        sent.len()
    );
    assert!(refused > 0, "the storm asked for more than was captured");
    for order in &orders {
        let sum = accepted.get(order.as_str()).copied().unwrap_or(0);
        assert!(sum <= AMOUNT, "order {order}: {sum} accepted of {AMOUNT}");
        let reserved = scenario
            .db
            .count(&format!(
                "SELECT CAST(refunded AS SIGNED) AS n FROM payments WHERE order_id = {order}"
            ))
            .await;
        assert_eq!(reserved, i64::from(sum), "order {order}: reserved");
    }

    let batches = summed_metric(
        more.iter().map(Service::base_url),
        "batch_size_count",
        r#"operation="payments.refund.v1""#,
    );
    eprintln!("{batches} batches of two or more refunds");
    assert!(batches > 0.0, "refunds went as batches");

    scenario.wait_until_none_pending().await;
    let total: usize = sent.iter().filter(|(_, _, status)| *status == 202).count();
    assert_eq!(
        scenario.db.count("SELECT COUNT(*) AS n FROM refunds").await,
        i64::try_from(total).unwrap(),
        "every accepted refund succeeded"
    );
    assert_eq!(
        scenario.provider.counters().refunds,
        u64::try_from(total).unwrap()
    );
    drop(more);
    scenario.finish().await;
}
