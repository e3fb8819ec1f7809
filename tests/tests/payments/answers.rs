//! Scenarios 4 and 5: the provider's answer is lost, the provider fails before charging,
//! the provider stays down.

use chrono::NaiveDateTime;
use tests::{Api, Controls};

use crate::support::{Counts, PATIENCE, Scenario, wait_for_metric};

/// `payment_provider_calls_total`'s series for `call` and `result`, on `api`'s process.
fn provider_calls(api: &Api, call: &str, result: &str) -> Option<f64> {
    api.labelled_metric(
        "payment_provider_calls_total",
        &format!(r#"call="{call}",result="{result}""#),
    )
}

fn time(text: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").unwrap()
}

/// The provider charges, then hangs up without an answer. The worker resolves the
/// unknown outcome with the result query under the same key, finds the charge and
/// completes in the same attempt: one charge call, one charge, `succeeded`.
#[tokio::test]
async fn an_answer_lost_after_the_charge_is_resolved_by_the_result_query() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        drop_after_charge: 1,
        ..Controls::default()
    });
    let worker = scenario.serve_worker(None, &[]);
    let accepted = scenario.accept("REF-1");

    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(
        (ended.state.as_str(), ended.generation, ended.attempts),
        ("SUCCEEDED", 1, 0),
        "resolved within the first attempt: {ended:?}"
    );
    let status = scenario.status(&accepted);
    assert_eq!(status["state"], "succeeded");
    let api = Api::new(worker.base_url());
    assert_eq!(provider_calls(&api, "charge", "unknown"), Some(1.0));
    assert_eq!(provider_calls(&api, "lookup", "found"), Some(1.0));
    assert_eq!(scenario.provider.counters().lookup_calls, 1);
    scenario.assert_counts(Counts::one_success(1)).await;
    drop(worker);
    scenario.finish().await;
}

/// Two `503`s before charging: each attempt asks the result query (nothing under the
/// key), is counted, and is retried after a backoff that doubles; the third charges. The
/// row keeps the two failed attempts; three generations, one charge.
#[tokio::test]
async fn provider_5xx_before_charging_is_retried_with_backoff_then_succeeds() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        fail5xx: 2,
        ..Controls::default()
    });
    // A backoff long enough that each retry's row can be seen (300 ms, then 600 ms).
    let worker = scenario.serve_worker(None, &[("OPERATION_BACKOFF_MS", "300")]);
    let accepted = scenario.accept("REF-1");

    let first = scenario
        .wait_for_operation(&accepted, "the first retry", |row| row.attempts == 1)
        .await;
    let second = scenario
        .wait_for_operation(&accepted, "the second retry", |row| row.attempts == 2)
        .await;
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(
        (ended.state.as_str(), ended.generation, ended.attempts),
        ("SUCCEEDED", 3, 2),
        "{ended:?}"
    );
    // The second attempt began once the first backoff was over, and put the third off
    // by twice that.
    let between = time(&second.next_attempt_at) - time(&first.next_attempt_at);
    assert!(
        between >= chrono::TimeDelta::milliseconds(600),
        "backoff doubles: {first:?} then {second:?}"
    );
    assert_eq!(first.downstream_key, ended.downstream_key, "the same key");

    let api = Api::new(worker.base_url());
    assert_eq!(api.metric("operation_retries_total"), 2.0);
    assert_eq!(provider_calls(&api, "charge", "unknown"), Some(2.0));
    assert_eq!(provider_calls(&api, "lookup", "not_found"), Some(2.0));
    assert_eq!(provider_calls(&api, "charge", "definite"), Some(1.0));
    assert_eq!(scenario.status(&accepted)["state"], "succeeded");
    scenario.assert_counts(Counts::one_success(3)).await;
    drop(worker);
    scenario.finish().await;
}

/// The provider is down for good: after `OPERATION_MAX_ATTEMPTS` (3) attempts the
/// operation ends `needs_review`, logged for a person, without a payment and without a
/// charge; it is not retried further.
#[tokio::test]
async fn a_permanent_outage_ends_needs_review_after_the_bounded_attempts() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let worker = scenario.serve_worker(None, &[("OPERATION_MAX_ATTEMPTS", "3")]);
    let accepted = scenario.accept("REF-1");

    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(
        (ended.state.as_str(), ended.generation, ended.attempts),
        ("NEEDS_REVIEW", 3, 3),
        "three attempts, each its own claim, all counted: {ended:?}"
    );
    let status = scenario.status(&accepted);
    assert_eq!(status["state"], "needs_review", "{status}");
    assert!(status["payment"].is_null(), "{status}");
    worker
        .wait_for_log("operation needs review")
        .unwrap_or_else(|log| panic!("not logged for a person:\n{log}"));
    let line = worker
        .log()
        .lines()
        .find(|line| line.contains("operation needs review"))
        .unwrap()
        .to_owned();
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains(&accepted.operation_id), "{line}");

    let api = Api::new(worker.base_url());
    let needs_review = r#"type="payments.capture.v1",state="needs_review""#;
    wait_for_metric(&api, "operations_ended_total", needs_review, 1.0, PATIENCE).await;
    assert_eq!(api.metric("operation_retries_total"), 2.0);
    assert_eq!(provider_calls(&api, "charge", "unknown"), Some(3.0));
    assert_eq!(provider_calls(&api, "lookup", "error"), Some(3.0));
    let counters = scenario.provider.counters();
    assert_eq!(
        counters.lookup_calls, 3,
        "each unknown answer was looked up"
    );
    // Up again, so that the final check's result queries are answered.
    scenario.provider.control(&Controls::default());
    scenario
        .assert_counts(Counts {
            operations: 1,
            succeeded: 0,
            needs_review: 1,
            payments: 0,
            charge_calls: 3,
            charges: 0,
        })
        .await;
    drop(worker);
    scenario.finish().await;
}
