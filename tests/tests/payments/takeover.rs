//! Scenario 1: the owner dies after the provider charged and before it wrote the outcome.

use tests::PauseDir;

use crate::support::{CHARGED, Counts, Scenario};

/// Owner A is held at `operation-charged` (the provider charged, nothing written yet) and
/// killed with SIGKILL there. Once A's lease ran out, process B claims the next
/// generation, charges again under the same downstream key, gets A's charge back and
/// completes: one charge, one payment, `succeeded`.
#[tokio::test]
async fn an_owner_killed_after_the_charge_is_taken_over_and_charged_once() {
    let scenario = Scenario::new().await;
    let pause = PauseDir::new();
    pause.arm(CHARGED);
    let mut owner = scenario.serve_worker(Some(&pause), &[]);
    let accepted = scenario.accept("REF-1");

    pause.wait_until_reached(CHARGED);
    let charged = scenario.operation(&accepted).await;
    charged.assert_pending_under(1, &owner);
    let a_expires = charged
        .lease_expires_at
        .clone()
        .expect("A's lease has an expiry");
    let before_kill = scenario.provider.counters();
    assert_eq!(
        (before_kill.charge_calls, before_kill.charges),
        (1, 1),
        "A charged before it died"
    );
    owner.kill();

    let next = scenario.worker(None, &[]);
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(ended.state, "SUCCEEDED", "{ended:?}");
    assert_eq!(ended.generation, 2, "A's claim, then B's: {ended:?}");
    assert_eq!(ended.attempts, 0, "the takeover is not a failed attempt");
    assert_eq!(
        ended.downstream_key, charged.downstream_key,
        "the fixed key"
    );
    assert_eq!(ended.lease_owner, None, "the lease given back");
    assert!(
        ended.updated_at >= a_expires,
        "B ended it only after A's lease ran out: {ended:?} vs {charged:?}"
    );
    next.wait_for_log("operation ended").unwrap();

    let status = scenario.status(&accepted);
    assert_eq!(status["state"], "succeeded", "{status}");
    let payments = scenario.payments_of(&accepted).await;
    assert_eq!(payments.len(), 1);
    assert_eq!(
        status["payment"]["providerChargeId"], payments[0].provider_charge_id,
        "{status}"
    );
    assert_eq!(
        scenario.provider.counters().lookup_calls,
        0,
        "both answers definite"
    );
    scenario.assert_counts(Counts::one_success(2)).await;
    drop(next);
    scenario.finish().await;
}
