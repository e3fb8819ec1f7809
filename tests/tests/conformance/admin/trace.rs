//! The trace an operation was accepted in, as the admin reads it: its trace id when
//! `operation_traces` has a row, none when tracing was off (no row), in the one-operation
//! read and in a listing alike.

use application::admin::{AdminScope, AdminStore, OperationFilter};
use tests::Backend;

use super::{NewOp, insert_operation, op};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

pub(crate) async fn an_operation_reads_with_the_trace_id_it_was_accepted_in<B: Backend>() {
    let db = B::create().await;
    insert_operation(&db, &NewOp::new(7)).await;
    insert_operation(&db, &NewOp::new(8)).await;
    db.run_sql(&format!(
        "INSERT INTO operation_traces (operation_id, trace_context) VALUES \
         (X'{:032x}', '00-{TRACE_ID}-00f067aa0ba902b7-01')",
        7
    ))
    .await;
    let store = db.store();
    let traced = |n| async move {
        store
            .find_operation(AdminScope::AllTenants, op(n))
            .await
            .unwrap()
            .unwrap()
            .trace_id
    };
    assert_eq!(traced(7).await.as_deref(), Some(TRACE_ID));
    assert_eq!(traced(8).await, None, "accepted with tracing off");

    let listed = store
        .list_operations(
            AdminScope::AllTenants,
            &OperationFilter::default(),
            None,
            10,
        )
        .await
        .unwrap();
    let ids: Vec<_> = listed
        .iter()
        .map(|row| (row.id.as_u128(), row.trace_id.as_deref()))
        .collect();
    assert_eq!(ids, vec![(8, None), (7, Some(TRACE_ID))]);
    db.finish().await;
}
