use application::CreateRefusal;

use super::*;

#[test]
fn counted_outcomes_and_latencies_appear_in_the_text() {
    let metrics = Metrics::new();
    metrics.count_outcome(
        "orders.create.v1",
        &Outcome::Rejected(CreateRefusal::ClientOrderRefConflict),
    );
    metrics.observe_request("POST", "/api/orders", 409, 0.002);
    let text = metrics.render();
    assert!(
        text.contains(
            r#"idempotent_outcomes_total{operation="orders.create.v1",outcome="rejected"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains("http_request_duration_seconds_count{"),
        "{text}"
    );
}
