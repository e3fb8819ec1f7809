//! The migrated schema.

use tests::TestDb;

#[tokio::test]
async fn running_the_migrations_again_changes_nothing() {
    let db = TestDb::create().await;

    let applied_again = db.store().migrate().await.unwrap();

    assert!(applied_again.is_empty(), "{applied_again:?}");
    db.drop_database().await;
}

#[tokio::test]
async fn the_record_table_refuses_a_second_row_for_the_same_scope_key() {
    let db = TestDb::create().await;
    let insert = "INSERT INTO api_idempotency (tenant_id, actor_id, operation, idempotency_key, \
                  fingerprint_version, request_hash, state, created_at) VALUES \
                  (1, 1, 'orders.create.v1', 'k', 1, REPEAT('a', 32), 'PROCESSING', NOW(6))";
    db.run_sql(insert).await;

    let mut conn = {
        use diesel_async::AsyncConnection;
        diesel_async::AsyncMysqlConnection::establish(db.url())
            .await
            .unwrap()
    };
    let second = diesel_async::SimpleAsyncConnection::batch_execute(&mut conn, insert).await;

    let error = second
        .expect_err("the unique index must refuse it")
        .to_string();
    assert!(
        error.contains("uq_api_idempotency_scope_key"),
        "{error} ({})",
        db.context()
    );
    db.drop_database().await;
}
