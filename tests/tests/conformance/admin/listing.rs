//! Listings: newest first (accepted time, then id), each filter, the scope, and keyset
//! pages that visit every row once, also where two rows share their accepted time.

use application::admin::{AdminOperation, AdminScope, AdminStore, OperationFilter, PageLimit};
use application::leased::Members;
use domain::{Generation, OperationState, OrderId};
use tests::Backend;

use super::{NewOp, admin, at, hex, insert_operation, op, tenant};

const REFUND: &str = "payments.refund.v1";

/// Five operations of two tenants; 2 and 3 were accepted at the same time.
/// Newest first: 5, 3, 2, 4, 1.
async fn add_operations<B: Backend>(db: &B) {
    let rows = [
        (1, 1, "PENDING", NewOp::new(1).kind, "2026-01-01 00:00:01"),
        (
            2,
            1,
            "NEEDS_REVIEW",
            NewOp::new(2).kind,
            "2026-01-01 00:00:03",
        ),
        (3, 2, "PENDING", REFUND, "2026-01-01 00:00:03"),
        (4, 2, "SUCCEEDED", NewOp::new(4).kind, "2026-01-01 00:00:02"),
        (5, 1, "DECLINED", NewOp::new(5).kind, "2026-01-01 00:00:05"),
    ];
    for (n, tenant, state, kind, created) in rows {
        let row = NewOp {
            tenant,
            state,
            kind,
            created,
            ..NewOp::new(n)
        };
        insert_operation(db, &row).await;
    }
    db.run_sql(
        "INSERT INTO payments (operation_id, tenant_id, order_id, provider_charge_id, amount, \
         currency, created_at) VALUES (X'00000000000000000000000000000004', 2, 4, X'63685f34', \
         1500, X'4a5059', '2026-01-01 00:00:02')",
    )
    .await;
    db.run_sql(&format!(
        "UPDATE operations SET result = X'{}' WHERE id = X'00000000000000000000000000000004'",
        hex(PAID_4)
    ))
    .await;
}

/// What operation 4's capture recorded when it succeeded.
const PAID_4: &str =
    r#"{"payment":{"paymentId":"1","providerChargeId":"ch_4","amount":1500,"currency":"JPY"}}"#;

async fn listed<S: AdminStore>(store: &S, scope: AdminScope, filter: OperationFilter) -> Vec<u128> {
    let rows = store
        .list_operations(scope, &filter, None, 100)
        .await
        .unwrap();
    rows.iter().map(|row| row.id.as_u128()).collect()
}

/// Every page of the listing, as the ids each shows.
async fn pages<S: adapters::api::ServiceStore>(
    store: &S,
    scope: AdminScope,
    limit: u64,
) -> Vec<Vec<u128>> {
    let kinds = adapters::api::leased_kinds();
    let (admin, limit) = (admin(store, &kinds), PageLimit::parse(limit).unwrap());
    let (mut pages, mut after) = (Vec::new(), None);
    loop {
        let page = admin
            .list_operations(scope, &OperationFilter::default(), after, limit)
            .await
            .unwrap();
        pages.push(page.items.iter().map(|row| row.id.as_u128()).collect());
        assert!(pages.len() <= 10, "the pages end");
        match page.next {
            Some(next) => after = Some(next),
            None => return pages,
        }
    }
}

pub(crate) async fn listings_are_newest_first_filtered_scoped_and_paged<B: Backend>()
where
    B::Store: AdminStore,
{
    let db = B::create().await;
    add_operations(&db).await;
    let store = db.store();
    let all = AdminScope::AllTenants;
    let open = OperationFilter::default;

    assert_eq!(listed(store, all, open()).await, [5, 3, 2, 4, 1]);
    let by_state = OperationFilter {
        state: Some(OperationState::Pending),
        ..open()
    };
    assert_eq!(listed(store, all, by_state).await, [3, 1]);
    let by_type = OperationFilter {
        operation_type: Some(REFUND.to_owned()),
        ..open()
    };
    assert_eq!(listed(store, all, by_type).await, [3]);
    let by_tenant = OperationFilter {
        tenant: Some(tenant(2)),
        ..open()
    };
    assert_eq!(listed(store, all, by_tenant.clone()).await, [3, 4]);
    let before = OperationFilter {
        accepted_before: Some(at("2026-01-01 00:00:03")),
        ..open()
    };
    assert_eq!(
        listed(store, all, before).await,
        [4, 1],
        "before: exclusive"
    );
    let after = OperationFilter {
        accepted_after: Some(at("2026-01-01 00:00:03")),
        ..open()
    };
    assert_eq!(
        listed(store, all, after).await,
        [5, 3, 2],
        "after: inclusive"
    );

    let own = AdminScope::Tenant(tenant(1));
    assert_eq!(listed(store, own, open()).await, [5, 2, 1]);
    assert!(
        listed(store, own, by_tenant).await.is_empty(),
        "the scope holds"
    );
    assert_eq!(store.find_operation(own, op(4)).await.unwrap(), None);

    // Page boundaries fall between 3 and 2, which share their accepted time.
    assert_eq!(
        pages(store, all, 2).await,
        [vec![5, 3], vec![2, 4], vec![1]]
    );
    assert_eq!(pages(store, own, 1).await, [vec![5], vec![2], vec![1]]);
    assert_eq!(pages(store, all, 5).await, [vec![5, 3, 2, 4, 1]]);

    let read = store
        .find_operation(AdminScope::Tenant(tenant(2)), op(4))
        .await
        .unwrap()
        .expect("in its tenant's scope");
    let payment: serde_json::Value = read.result.member("payment").expect("its payment");
    assert_eq!(
        (
            &payment["providerChargeId"],
            &payment["amount"],
            &payment["currency"]
        ),
        (&"ch_4".into(), &1500.into(), &"JPY".into())
    );
    assert_eq!(
        read,
        AdminOperation {
            id: op(4),
            operation_type: NewOp::new(4).kind.to_owned(),
            tenant: tenant(2),
            order: OrderId::new(4),
            input: Members::parse(br#"{"amount":1500,"currency":"JPY"}"#).unwrap(),
            state: OperationState::Succeeded,
            attempts: 3,
            next_attempt_at: at("2026-01-01 00:00:00"),
            lease_owner: None,
            lease_expires_at: None,
            generation: Generation::new(0),
            downstream_key: "key-4".to_owned(),
            last_error: None,
            accepted_at: at("2026-01-01 00:00:02"),
            updated_at: at("2026-01-01 00:00:02"),
            result: Members::parse(PAID_4.as_bytes()).unwrap(),
            trace_id: None,
        }
    );
    db.finish().await;
}
