//! The audit trail: newest first by id, the scope filters by the target's tenant, and
//! keyset pages visit every row once.

use application::admin::{
    AdminScope, AdminStore, AuditCursor, AuditEntry, ChangeOutcome, OperationChange, OperatorName,
    PageLimit, Target, Who,
};
use domain::{ActorId, Generation, OperationState, OperatorAction};
use tests::Backend;

use super::{NewOp, admin, insert_completed_key, insert_operation, key_address, now, op, tenant};

/// Request `r<n>`: by an operator when `n` is even, else by a caller.
fn entry(n: usize, kind: &'static str, id: String, target_tenant: u64) -> AuditEntry {
    let evict = kind == "idempotency_key";
    AuditEntry {
        who: if n.is_multiple_of(2) {
            Who::Operator(OperatorName::parse("carol").unwrap())
        } else {
            Who::Caller {
                tenant: tenant(target_tenant),
                actor: ActorId::parse(5).unwrap(),
            }
        },
        action: if evict {
            "idempotency_key.evict"
        } else {
            "operation.cancel"
        },
        target: Target {
            kind,
            id,
            tenant: tenant(target_tenant),
        },
        before: if evict { "completed" } else { "pending" },
        after: if evict { "evicted" } else { "cancelled" },
        request_id: format!("r{n}"),
        at: now(),
    }
}

async fn evict<S: AdminStore>(store: &S, n: usize, tenant: u64, key: &str) {
    let address = key_address(tenant, key);
    let audit = entry(n, "idempotency_key", address.target_id(), tenant);
    assert!(store.evict_key(&address, &audit).await.unwrap());
}

async fn cancel<S: AdminStore>(store: &S, n: usize, operation: u128, tenant: u64) {
    let action = OperatorAction::Cancel;
    let change = OperationChange {
        id: op(operation),
        order: (
            super::tenant(tenant),
            domain::OrderId::new(u64::try_from(operation).unwrap()),
        ),
        seen_state: OperationState::Pending,
        seen_generation: Generation::new(0),
        action: &action,
        attempts: 3,
        now: now(),
    };
    let audit = entry(
        n,
        "operation",
        op(operation).hyphenated().to_string(),
        tenant,
    );
    assert_eq!(
        store.change_operation(&change, &audit, None).await.unwrap(),
        ChangeOutcome::Changed
    );
}

/// Every page of the trail, as the request ids each shows.
async fn pages<S: adapters::api::ServiceStore>(
    store: &S,
    scope: AdminScope,
    limit: u64,
) -> Vec<Vec<String>> {
    let kinds = adapters::api::leased_kinds();
    let (admin, limit) = (admin(store, &kinds), PageLimit::parse(limit).unwrap());
    let (mut pages, mut after) = (Vec::new(), None);
    loop {
        let page = admin.list_audit(scope, after, limit).await.unwrap();
        pages.push(page.items.into_iter().map(|e| e.request_id).collect());
        assert!(pages.len() <= 10, "the pages end");
        match page.next {
            Some(next) => after = Some(next),
            None => return pages,
        }
    }
}

fn requests(ns: &[usize]) -> Vec<String> {
    ns.iter().map(|n| format!("r{n}")).collect()
}

pub(crate) async fn audit_rows_page_newest_first_within_the_scope<B: Backend>()
where
    B::Store: AdminStore,
{
    let db = B::create().await;
    for (tenant, key) in [(1, "k0"), (2, "k1"), (1, "k2")] {
        insert_completed_key(&db, tenant, key).await;
    }
    insert_operation(
        &db,
        &NewOp {
            tenant: 2,
            ..NewOp::new(7)
        },
    )
    .await;
    insert_operation(
        &db,
        &NewOp {
            tenant: 1,
            ..NewOp::new(8)
        },
    )
    .await;
    let store = db.store();
    evict(store, 0, 1, "k0").await;
    cancel(store, 1, 7, 2).await;
    evict(store, 2, 2, "k1").await;
    cancel(store, 3, 8, 1).await;
    evict(store, 4, 1, "k2").await;

    let all = store
        .list_audit(AdminScope::AllTenants, None, 100)
        .await
        .unwrap();
    let shown: Vec<_> = all.iter().map(|e| e.request_id.clone()).collect();
    assert_eq!(shown, requests(&[4, 3, 2, 1, 0]));
    assert!(
        all.windows(2).all(|pair| pair[0].id > pair[1].id),
        "{all:?}"
    );
    let cancelled = &all[1];
    assert_eq!(
        (cancelled.target_kind.as_str(), cancelled.target_id.clone()),
        ("operation", op(8).hyphenated().to_string())
    );

    let theirs = store
        .list_audit(AdminScope::Tenant(tenant(2)), None, 100)
        .await
        .unwrap();
    let shown: Vec<_> = theirs.iter().map(|e| e.request_id.clone()).collect();
    assert_eq!(shown, requests(&[2, 1]));
    assert!(theirs.iter().all(|e| e.target_tenant == tenant(2)));

    let after = store
        .list_audit(AdminScope::AllTenants, Some(AuditCursor(all[2].id)), 100)
        .await
        .unwrap();
    let shown: Vec<_> = after.iter().map(|e| e.request_id.clone()).collect();
    assert_eq!(shown, requests(&[1, 0]), "after a cursor: older rows only");

    let every = AdminScope::AllTenants;
    assert_eq!(
        pages(store, every, 2).await,
        [requests(&[4, 3]), requests(&[2, 1]), requests(&[0])]
    );
    assert_eq!(
        pages(store, AdminScope::Tenant(tenant(1)), 2).await,
        [requests(&[4, 3]), requests(&[0])]
    );
    assert_eq!(pages(store, every, 5).await, [requests(&[4, 3, 2, 1, 0])]);
    db.finish().await;
}
