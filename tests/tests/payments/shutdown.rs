//! Graceful shutdown: a worker stopped in the middle of a provider call writes nothing.

use tests::Controls;

use crate::support::{Counts, PATIENCE, Scenario};

/// `server worker` A holds a lease while its call is held at the provider; SIGTERM makes
/// it exit cleanly at once, dropping the call: the operation's row is as A's claim and
/// its lease extensions left it (its lease runs out, nothing given back by a write, no
/// attempt counted). The next owner completes under the same key, with the one charge A's
/// call made. An extension may land between the read and the signal; that is A's lease
/// going on, not a write of the shutdown, so the expiry may only have moved later.
#[tokio::test]
async fn a_worker_stopped_mid_call_exits_writing_nothing_and_the_next_owner_completes() {
    let scenario = Scenario::new().await;
    scenario.provider.control(&Controls {
        hold: true,
        ..Controls::default()
    });
    let mut owner = scenario.worker(None, &[]);
    let accepted = scenario.accept("REF-1");
    scenario.provider.wait_for(PATIENCE, |c| c.held == 1);
    let claimed = scenario.operation(&accepted).await;
    assert_eq!((claimed.state.as_str(), claimed.generation), ("PENDING", 1));

    owner.terminate();
    let status = owner.wait();
    assert!(
        status.success(),
        "a clean exit: {status:?}\n{}",
        owner.log()
    );
    let after = scenario.operation(&accepted).await;
    assert_eq!(
        (
            &after.state,
            after.generation,
            &after.lease_owner,
            after.attempts,
            &after.downstream_key,
        ),
        (
            &claimed.state,
            claimed.generation,
            &claimed.lease_owner,
            claimed.attempts,
            &claimed.downstream_key,
        ),
        "the stopped worker wrote nothing"
    );
    assert!(
        after.lease_expires_at >= claimed.lease_expires_at,
        "its lease was not given back: {after:?} vs {claimed:?}"
    );

    scenario.provider.control(&Controls::default());
    let next = scenario.worker(None, &[]);
    let ended = scenario.wait_until_ended(&accepted).await;
    assert_eq!((ended.state.as_str(), ended.generation), ("SUCCEEDED", 2));
    assert!(
        ended.updated_at >= claimed.lease_expires_at.clone().unwrap(),
        "taken over only once the stopped worker's lease ran out"
    );
    scenario.assert_counts(Counts::one_success(2)).await;
    drop((owner, next));
    scenario.finish().await;
}
