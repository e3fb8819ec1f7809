//! A worker's group of leases on every store: one statement claims or extends them all,
//! one transaction ends them all, and each operation's fence is still its own: a row
//! another owner holds, or one at a generation the group did not see, is left as it is
//! while the rest of the group goes through.

use application::ports::{Claim, Ending, OperationEnd, OperationStore};
use chrono::TimeDelta;
use domain::Lease;
use tests::Backend;
use tests::leased::{add_capture, complete_all, due};
use uuid::Uuid;

use crate::operations::{now, owner};

pub(crate) async fn a_group_is_claimed_extended_and_ended_each_under_its_own_fence<B: Backend>() {
    let db = B::create().await;
    for n in 1..=3u64 {
        add_capture(&db, u128::from(n), 20 + n).await;
    }
    let store = db.store();
    let t0 = now();
    let mut due = due(store, t0).await.unwrap();
    due.sort_by_key(|op| op.id);
    assert_eq!(due.len(), 3);
    let claim = |name: &str, n: usize| {
        due[n]
            .lease
            .claim(owner(name), t0, TimeDelta::seconds(30))
            .unwrap()
    };
    // A rival holds the first before the group is claimed.
    let rival = claim("rival", 0);
    assert!(
        store
            .claim(due[0].id, due[0].lease.generation, &rival, t0)
            .await
            .unwrap()
    );
    let leases: Vec<Lease> = (0..3).map(|n| claim("group", n)).collect();
    let claims: Vec<Claim<'_>> = due
        .iter()
        .zip(&leases)
        .map(|(op, lease)| Claim {
            id: op.id,
            seen: op.lease.generation,
            lease,
        })
        .collect();
    assert_eq!(
        store.claim_all(&claims, t0).await.unwrap(),
        [false, true, true],
        "the rival keeps its claim; the others are the group's"
    );
    assert_eq!(
        store.claim_all(&claims, t0).await.unwrap(),
        [false, false, false],
        "each generation is won once"
    );

    // A lease of the generation before the claims: what a worker holds once another
    // took the operation over.
    let stale = |n: usize| Lease {
        generation: due[n].lease.generation,
        ..leases[n].clone()
    };
    let later = t0 + TimeDelta::seconds(10);
    let extended: Vec<Lease> = [stale(0), leases[1].clone(), leases[2].clone()]
        .iter()
        .map(|lease| lease.until(later + TimeDelta::seconds(30)))
        .collect();
    let asked: Vec<(Uuid, &Lease)> = due.iter().map(|op| op.id).zip(&extended).collect();
    assert_eq!(
        store.extend_all(&asked).await.unwrap(),
        [false, true, true],
        "a stale lease is not extended; the others are"
    );

    let success = Ending::Succeeded {
        provider_id: "ch_group".into(),
    };
    let stale_second = stale(1);
    let ends: Vec<OperationEnd<'_>> = [&extended[0], &stale_second, &extended[2]]
        .into_iter()
        .zip(&due)
        .map(|(lease, operation)| OperationEnd {
            operation,
            lease,
            ending: &success,
            attempts: 0,
            now: later,
        })
        .collect();
    assert_eq!(
        complete_all(store, &ends).await.unwrap(),
        [false, false, true],
        "only the end under a live fence is written"
    );
    assert_eq!(
        db.count_rows("payments").await,
        1,
        "one payment, the third's"
    );
    assert_eq!(
        db.count_rows("operations WHERE state = 'SUCCEEDED'").await,
        1
    );
    assert_eq!(
        db.count_rows(&format!(
            "operations WHERE state = 'PENDING' AND id IN (X'{:032x}', X'{:032x}')",
            1, 2
        ))
        .await,
        2,
        "the stale ends left the first two pending"
    );
    db.finish().await;
}
