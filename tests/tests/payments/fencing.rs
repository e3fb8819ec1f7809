//! Scenario 3: a stale owner resumes after another took its operation over.

use tests::{Api, PauseDir};

use crate::support::{CHARGED, Counts, PATIENCE, Scenario, eventually};

/// The label set of the succeeded operations in `operations_ended_total`.
const SUCCEEDED: &str = r#"type="payments.capture.v1",state="succeeded""#;

/// Waits until the process behind `api` reported `n` operations in all, lost or ended
/// (whichever the fence made of them).
async fn wait_for_reports(api: &Api, n: f64) {
    let reports = || {
        api.metric("operation_lease_losses_total")
            + api
                .labelled_metric("operations_ended_total", SUCCEEDED)
                .unwrap_or(0.0)
    };
    eventually(PATIENCE, || async { (reports() >= n).then_some(()) })
        .await
        .unwrap_or_else(|| panic!("A reported {} operations, not {n}", reports()));
}

/// Owner A (2 s lease) is held at `operation-charged` past its lease, with its own pause
/// directory; the operation is taken over by B, which holds a longer lease.
///
/// Round a: B has claimed (and is itself held at its pause point) when A is released:
/// A's completion, and with it the payment insert, is refused by the fence: the row is
/// exactly as B left it, no payment exists. B then completes.
///
/// Round b, a second operation: A is held again, B' takes over and completes, and only
/// then is A released: refused again, the row and the payment unchanged.
#[tokio::test]
async fn a_stale_owner_that_resumes_is_refused_by_the_fence_and_changes_nothing() {
    let scenario = Scenario::new().await;
    let (pause_a, pause_b) = (PauseDir::new(), PauseDir::new());
    let long_lease = [("OPERATION_LEASE_SECS", "10")];

    // Round a: released while the new owner is mid-way.
    pause_a.arm(CHARGED);
    let a = scenario.serve_worker(Some(&pause_a), &[]);
    let a_api = Api::new(a.base_url());
    let first = scenario.accept("REF-1");
    pause_a.wait_until_reached(CHARGED);
    let held = scenario.operation(&first).await;
    held.assert_pending_under(1, &a);

    pause_b.arm(CHARGED);
    let b = scenario.serve_worker(Some(&pause_b), &long_lease);
    pause_b.wait_until_reached(CHARGED);
    let taken = scenario.operation(&first).await;
    taken.assert_pending_under(2, &b);

    pause_a.release_point(CHARGED);
    wait_for_reports(&a_api, 1.0).await;
    assert_eq!(
        scenario.operation(&first).await,
        taken,
        "the stale owner changed nothing"
    );
    assert!(
        scenario.payments_of(&first).await.is_empty(),
        "no payment from the stale owner"
    );
    assert_eq!(a_api.metric("operation_lease_losses_total"), 1.0);
    a.wait_for_log("lease lost to another worker").unwrap();

    pause_b.release_point(CHARGED);
    let ended = scenario.wait_until_ended(&first).await;
    assert_eq!((ended.state.as_str(), ended.generation), ("SUCCEEDED", 2));
    assert_eq!(scenario.payments_of(&first).await.len(), 1);
    let b_api = Api::new(b.base_url());
    assert_eq!(
        b_api.labelled_metric("operations_ended_total", SUCCEEDED),
        Some(1.0)
    );
    assert_eq!(b_api.metric("operation_lease_losses_total"), 0.0);
    drop(b);

    // Round b: released after the new owner completed.
    pause_a.arm(CHARGED);
    let second = scenario.accept("REF-2");
    pause_a.wait_until_reached(CHARGED);
    let held = scenario.operation(&second).await;
    held.assert_pending_under(1, &a);

    let b_again = scenario.serve_worker(None, &long_lease);
    let done = scenario.wait_until_ended(&second).await;
    assert_eq!((done.state.as_str(), done.generation), ("SUCCEEDED", 2));
    let paid = scenario.payments_of(&second).await;
    assert_eq!(paid.len(), 1);

    pause_a.release_point(CHARGED);
    wait_for_reports(&a_api, 2.0).await;
    assert_eq!(
        scenario.operation(&second).await,
        done,
        "the stale owner changed nothing"
    );
    assert_eq!(
        scenario.payments_of(&second).await,
        paid,
        "the same payment"
    );
    assert_eq!(a_api.metric("operation_lease_losses_total"), 2.0);
    assert_eq!(
        a_api.labelled_metric("operations_ended_total", SUCCEEDED),
        None
    );
    assert_eq!(
        a_api.labelled_metric("operation_claims_total", r#"result="won""#),
        Some(2.0),
        "A won its two claims and ended neither"
    );

    scenario
        .assert_counts(Counts {
            operations: 2,
            succeeded: 2,
            needs_review: 0,
            payments: 2,
            charge_calls: 4,
            charges: 2,
        })
        .await;
    drop((a, b_again));
    scenario.finish().await;
}
