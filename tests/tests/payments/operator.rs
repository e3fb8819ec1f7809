//! An operator acts while a worker is paused after the provider answered
//! (`docs/admin.md#fencing`): the operator's write bumps the generation in its own
//! conditional `UPDATE`, so the worker, resumed, writes nothing: no second payment, no
//! state change, one audit row. And a retried operation runs again under its own key.

use tests::{Api, Controls, PauseDir, token};

use crate::counts::lookup;
use crate::support::{CHARGED, Counts, PATIENCE, Scenario, eventually};

fn operator() -> String {
    token(1, 9, "admin:read admin:write")
}

fn act(api: &Api, id: &str, what: &str, body: Option<&str>) -> tests::Reply {
    api.admin(
        "POST",
        &format!("/api/admin/operations/{id}/{what}"),
        &operator(),
        body,
    )
}

async fn audit_rows(scenario: &Scenario) -> i64 {
    scenario
        .db
        .count("SELECT COUNT(*) AS n FROM audit_events")
        .await
}

/// Waits until the process behind `api` counted `n` lease losses: the resumed worker's
/// refused write.
async fn wait_for_lease_losses(api: &Api, n: f64) {
    eventually(PATIENCE, || async {
        (api.metric("operation_lease_losses_total") >= n).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("the worker never reported its lost lease"));
}

#[tokio::test]
async fn a_cancel_while_the_charged_worker_is_paused_fences_it_out() {
    let scenario = Scenario::new().await;
    let pause = PauseDir::new();
    pause.arm(CHARGED);
    let worker = scenario.serve_worker(Some(&pause), &[]);
    let worker_api = Api::new(worker.base_url());
    let accepted = scenario.accept("REF-1");
    pause.wait_until_reached(CHARGED);
    scenario
        .operation(&accepted)
        .await
        .assert_pending_under(1, &worker);

    // Its lease is live until it runs out (no heartbeat after the answer): busy until then.
    let id = &accepted.operation_id;
    let cancelled = eventually(PATIENCE, || async {
        let reply = act(&scenario.api, id, "cancel", None);
        if reply.code().as_deref() == Some("operation_busy") {
            assert!(reply.header("retry-after").is_some());
            return None;
        }
        Some(reply)
    })
    .await
    .unwrap();
    assert_eq!(cancelled.status, 200);
    assert_eq!(cancelled.json()["generation"], 2);
    let after_cancel = scenario.operation(&accepted).await;

    pause.release_point(CHARGED);
    wait_for_lease_losses(&worker_api, 1.0).await;
    assert_eq!(
        scenario.operation(&accepted).await,
        after_cancel,
        "the resumed worker changed nothing"
    );
    assert_eq!(scenario.status(&accepted)["state"], "cancelled");
    assert!(
        scenario.payments_of(&accepted).await.is_empty(),
        "no payment"
    );
    assert_eq!(audit_rows(&scenario).await, 1);
    // The provider did charge before the cancel: the charge is under the operation's key,
    // for a person to refund (docs/admin.md#cancel).
    scenario
        .assert_counts(Counts {
            operations: 1,
            succeeded: 0,
            needs_review: 0,
            payments: 0,
            charge_calls: 1,
            charges: 1,
        })
        .await;
    drop(worker);
    scenario.finish().await;
}

#[tokio::test]
async fn a_resolve_while_a_stale_worker_is_paused_leaves_one_payment_and_one_audit_row() {
    let scenario = Scenario::new().await;
    let pause = PauseDir::new();
    pause.arm(CHARGED);
    let stale = scenario.serve_worker(Some(&pause), &[]);
    let stale_api = Api::new(stale.base_url());
    let accepted = scenario.accept("REF-1");
    pause.wait_until_reached(CHARGED);

    // The provider stops answering; a second worker takes over once the lease ran out and
    // gives up after one attempt: a person must decide.
    scenario.provider.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let taker = scenario.worker(None, &[("OPERATION_MAX_ATTEMPTS", "1")]);
    let reviewed = scenario
        .wait_for_operation(&accepted, "the review", |row| row.state == "NEEDS_REVIEW")
        .await;
    assert_eq!(reviewed.generation, 2);
    let shown = scenario.api.get(
        &format!("/api/admin/operations/{}", accepted.operation_id),
        Some(&operator()),
    );
    assert_eq!(shown.json()["lastError"], "provider_status");
    drop(taker);

    // The person checks the provider: the first worker's charge is there.
    scenario.provider.control(&Controls::default());
    let charge = lookup(scenario.provider.url(), &reviewed.downstream_key).unwrap();
    let body = format!(r#"{{"outcome":"succeeded","providerChargeId":"{charge}"}}"#);
    let resolved = act(
        &scenario.api,
        &accepted.operation_id,
        "resolve",
        Some(&body),
    );
    assert_eq!(resolved.status, 200);
    assert_eq!(resolved.json()["generation"], 3);
    let after_resolve = scenario.operation(&accepted).await;

    pause.release_point(CHARGED);
    wait_for_lease_losses(&stale_api, 1.0).await;
    assert_eq!(scenario.operation(&accepted).await, after_resolve);
    let paid = scenario.payments_of(&accepted).await;
    assert_eq!(paid.len(), 1, "one payment: the operator's");
    assert_eq!(paid[0].provider_charge_id, charge);
    assert_eq!(audit_rows(&scenario).await, 1);
    scenario.assert_counts(Counts::one_success(2)).await;
    drop(stale);
    scenario.finish().await;
}

#[tokio::test]
async fn a_retried_operation_runs_again_under_its_own_key_and_succeeds() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let worker = scenario.serve_worker(None, &[("OPERATION_MAX_ATTEMPTS", "2")]);
    let accepted = scenario.accept("REF-1");
    let reviewed = scenario
        .wait_for_operation(&accepted, "the review", |row| row.state == "NEEDS_REVIEW")
        .await;
    assert_eq!(reviewed.attempts, 2);
    assert_eq!(scenario.provider.counters().charges, 0);

    scenario.provider.control(&Controls::default());
    let retried = act(&scenario.api, &accepted.operation_id, "retry", None);
    assert_eq!(retried.status, 200);
    assert_eq!(
        (&retried.json()["state"], &retried.json()["attempts"]),
        (&"pending".into(), &0.into())
    );
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(ended.state, "SUCCEEDED");
    assert_eq!(
        ended.downstream_key, reviewed.downstream_key,
        "the same key"
    );
    assert_eq!(audit_rows(&scenario).await, 1);
    scenario.assert_counts(Counts::one_success(3)).await;
    drop(worker);
    scenario.finish().await;
}
