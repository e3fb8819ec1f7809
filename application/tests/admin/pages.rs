//! Listings ask the store for one row more than the page shows, and name the last shown
//! row as the next cursor only when that extra row came back.

use application::admin::{
    AdminOperation, AdminScope, AuditCursor, AuditEvent, OperationCursor, OperationFilter,
    PageLimit,
};
use chrono::TimeDelta;
use domain::OperationState;
use uuid::Uuid;

use crate::support::*;

fn limit(n: u64) -> PageLimit {
    PageLimit::parse(n).unwrap()
}

/// The `n`th newest operation.
fn nth_operation(n: u32) -> AdminOperation {
    AdminOperation {
        id: Uuid::from_u128(u128::from(100 - n)),
        accepted_at: t0() - TimeDelta::seconds(i64::from(n)),
        ..operation(OperationState::Pending)
    }
}

/// The `n`th newest audit row.
fn nth_event(n: u64) -> AuditEvent {
    AuditEvent {
        id: 100 - n,
        at: t0(),
        who: request().who,
        action: "operation.cancel".to_owned(),
        target_kind: "operation".to_owned(),
        target_id: format!("op-{n}"),
        target_tenant: tenant(2),
        before: "pending".to_owned(),
        after: "cancelled".to_owned(),
        request_id: "req-42".to_owned(),
    }
}

fn after() -> OperationCursor {
    OperationCursor {
        accepted_at: t0(),
        id: Uuid::from_u128(1000),
    }
}

fn filter() -> OperationFilter {
    OperationFilter {
        state: Some(OperationState::Pending),
        tenant: Some(tenant(2)),
        ..OperationFilter::default()
    }
}

/// A page of 2 from a store answering `rows` operations, which is asked for 3.
async fn operations_page(rows: u32) -> application::admin::Page<AdminOperation, OperationCursor> {
    let mut store = MockStore::new();
    store
        .expect_list_operations()
        .withf(|scope, asked, cursor, n| {
            *scope == AdminScope::Tenant(tenant(2))
                && *asked == filter()
                && *cursor == Some(after())
                && *n == 3
        })
        .times(1)
        .returning(move |_, _, _, _| ready(Ok((0..rows).map(nth_operation).collect())));
    admin(&store)
        .list_operations(
            AdminScope::Tenant(tenant(2)),
            &filter(),
            Some(after()),
            limit(2),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn an_extra_operation_shows_the_limit_and_names_the_last_shown_as_next() {
    let page = operations_page(3).await;
    assert_eq!(page.items, vec![nth_operation(0), nth_operation(1)]);
    assert_eq!(
        page.next,
        Some(OperationCursor {
            accepted_at: t0() - TimeDelta::seconds(1),
            id: Uuid::from_u128(99),
        })
    );
}

#[tokio::test]
async fn no_extra_operation_is_the_last_page() {
    for rows in 0..=2 {
        let page = operations_page(rows).await;
        assert_eq!(page.items.len(), usize::try_from(rows).unwrap());
        assert_eq!(page.next, None, "{rows} rows");
    }
}

async fn audit_page(rows: u64) -> application::admin::Page<AuditEvent, AuditCursor> {
    let mut store = MockStore::new();
    store
        .expect_list_audit()
        .withf(|scope, cursor, n| {
            *scope == AdminScope::AllTenants && *cursor == Some(AuditCursor(500)) && *n == 3
        })
        .times(1)
        .returning(move |_, _, _| ready(Ok((0..rows).map(nth_event).collect())));
    admin(&store)
        .list_audit(AdminScope::AllTenants, Some(AuditCursor(500)), limit(2))
        .await
        .unwrap()
}

#[tokio::test]
async fn an_extra_audit_row_shows_the_limit_and_names_the_last_shown_as_next() {
    let page = audit_page(3).await;
    assert_eq!(page.items, vec![nth_event(0), nth_event(1)]);
    assert_eq!(page.next, Some(AuditCursor(99)));
}

#[tokio::test]
async fn no_extra_audit_row_is_the_last_page() {
    for rows in 0..=2 {
        let page = audit_page(rows).await;
        assert_eq!(page.items.len(), usize::try_from(rows).unwrap());
        assert_eq!(page.next, None, "{rows} rows");
    }
}
