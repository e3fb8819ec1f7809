//! Graceful shutdown: a worker stopped in the middle of a provider call writes nothing.

use tests::Controls;

use crate::support::{Counts, PATIENCE, Scenario};

/// `server worker` A holds a lease while its call is held at the provider; SIGTERM makes
/// it exit cleanly at once, dropping the call: the operation's row is exactly as A's claim
/// left it (its lease runs out, nothing given back by a write). The next owner completes
/// under the same key, with the one charge A's call made.
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
    assert_eq!(
        scenario.operation(&accepted).await,
        claimed,
        "the stopped worker wrote nothing"
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
