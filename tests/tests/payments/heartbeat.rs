//! Scenario 2: the owner's lease extension fails, so it stops.

use tests::{Controls, FaultProxy, TestServer, url_via};

use crate::support::{Counts, PATIENCE, Scenario};

/// Owner A reaches the database through the fault proxy. As soon as its charge call is
/// held at the provider (charged, answer not yet sent), A's connections are cut, so its
/// next lease extension (a third of the lease in) fails: A must stop at once and drop the
/// call. It asks no result query (an owner that went on would see its call time out and
/// ask one) and writes nothing. The database then comes back and the held answer is let
/// go; once A's lease ran out, the next owner (B, or A claiming afresh) completes at
/// generation 2 with the same charge.
///
/// The one window: the failed extension must come before A's call times out. With a 6 s
/// lease and a 5.8 s call bound, it comes at most 2 s after the cut, so the cut has 3.8 s
/// after the call is seen held; nothing but the cut is done in between.
#[tokio::test]
async fn an_owner_whose_extension_fails_stops_and_the_next_owner_completes() {
    let scenario = Scenario::new().await;
    let proxy = FaultProxy::start(TestServer::from_env().socket_addr());
    scenario.provider.control(&Controls {
        hold: true,
        ..Controls::default()
    });
    let owner = scenario.worker_on(
        &url_via(scenario.db.url(), proxy.address()),
        None,
        &[
            ("OPERATION_LEASE_SECS", "6"),
            ("PROVIDER_TIMEOUT_MS", "5800"),
        ],
    );
    let accepted = scenario.accept("REF-1");

    scenario.provider.wait_for(PATIENCE, |c| c.held == 1);
    proxy.cut();
    // Read directly, not through the proxy: A's claim as it stands.
    let claimed = scenario.operation(&accepted).await;
    claimed.assert_pending_under(1, &owner);
    let a_expires = claimed
        .lease_expires_at
        .clone()
        .expect("A's lease has an expiry");
    if let Err(log) = owner.wait_for_log("a database write failed") {
        panic!("A did not stop on the failed extension:\n{log}");
    }
    let stopped = owner.log();
    let line = stopped
        .lines()
        .find(|line| line.contains("a database write failed"))
        .unwrap();
    assert!(line.contains(&accepted.operation_id), "{line}");
    assert!(
        line.contains("lease extension"),
        "the failed step is named: {line}"
    );
    assert_eq!(
        scenario.provider.counters().held,
        1,
        "A's call still unanswered"
    );

    proxy.restore();
    scenario.provider.control(&Controls::default());
    scenario.provider.wait_for(PATIENCE, |c| c.held == 0);
    let next = scenario.worker(None, &[]);
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!(ended.state, "SUCCEEDED", "{ended:?}");
    assert_eq!(
        ended.generation, 2,
        "A wrote nothing at its generation; the next owner completed: {ended:?}"
    );
    assert_eq!(ended.attempts, 0, "no attempt counted by the stopped owner");
    assert!(
        ended.updated_at >= a_expires,
        "ended only after A's lease ran out: {ended:?} vs {claimed:?}"
    );
    let counters = scenario.provider.counters();
    assert_eq!(
        counters.lookup_calls, 0,
        "A's call was dropped, not timed out into a result query"
    );
    scenario.assert_counts(Counts::one_success(2)).await;
    drop((owner, next));
    scenario.finish().await;
}
