//! Who may call, and as whom (`docs/http-api.md#authentication`). Tenant and actor come
//! from the token.

use tests::{ALL_PERMISSIONS, TEST_SECRET, forged_token, order_json, token, token_expiring};

use crate::support::{App, full_token};

#[tokio::test]
async fn a_missing_malformed_forged_or_expired_token_is_401_with_a_bearer_challenge() {
    let app = App::start().await;
    let forged = forged_token(1, 1, ALL_PERMISSIONS);
    let expired = token_expiring(1, 1, ALL_PERMISSIONS, -3600);
    let cases: [(&str, Option<String>); 6] = [
        ("no header", None),
        ("another scheme", Some("Basic dXNlcjpwYXNz".into())),
        ("not a JWT", Some("Bearer not-a-token".into())),
        ("bad signature", Some(format!("Bearer {forged}"))),
        ("expired", Some(format!("Bearer {expired}"))),
        ("empty", Some("Bearer ".into())),
    ];
    for (case, authorization) in cases {
        let mut headers: Vec<(&str, &[u8])> = vec![
            ("idempotency-key", b"auth-1"),
            ("content-type", b"application/json"),
        ];
        if let Some(value) = &authorization {
            headers.push(("authorization", value.as_bytes()));
        }
        let body = order_json("REF-1", "SKU-1", 1);
        let reply = app
            .api
            .send("POST", "/api/orders", &headers, body.as_bytes());
        assert_eq!(
            reply.status_code(),
            (401, Some("unauthorized".into())),
            "{case}"
        );
        let challenge = reply.header("www-authenticate").unwrap_or_default();
        assert!(challenge.starts_with("Bearer"), "{case}: {challenge}");
        let text = String::from_utf8_lossy(&reply.body);
        assert!(
            !text.contains("eyJ") && !text.contains(TEST_SECRET),
            "{case}: {text}"
        );
    }
    app.assert_nothing_stored("unauthenticated").await;
    app.finish().await;
}

#[tokio::test]
async fn a_token_without_orders_create_is_403_and_stores_nothing() {
    let app = App::start().await;
    for scope in ["", "orders:read", "orders:created orders"] {
        let reply = app.api.create(
            &token(1, 1, scope),
            "perm-1",
            &order_json("REF-1", "SKU-1", 1),
        );
        assert_eq!(
            reply.status_code(),
            (403, Some("forbidden".into())),
            "{scope:?}"
        );
    }
    app.assert_nothing_stored("forbidden").await;
    app.finish().await;
}

#[tokio::test]
async fn a_stored_success_is_not_replayed_to_a_caller_who_lost_the_permission() {
    let app = App::start().await;
    let body = order_json("REF-1", "SKU-1", 1);
    assert_eq!(app.api.create(&full_token(), "perm-2", &body).status, 201);
    let reply = app.api.create(&token(1, 1, "orders:read"), "perm-2", &body);
    assert_eq!(reply.status_code(), (403, Some("forbidden".into())));
    assert!(!String::from_utf8_lossy(&reply.body).contains("REF-1"));
    app.finish().await;
}

#[tokio::test]
async fn the_key_is_scoped_to_the_tenant_and_actor_of_the_token() {
    let app = App::start().await;
    let body = order_json("REF-1", "SKU-1", 1);
    let tenant_one = app
        .api
        .create(&token(1, 1, ALL_PERMISSIONS), "shared", &body);
    let tenant_two = app
        .api
        .create(&token(2, 1, ALL_PERMISSIONS), "shared", &body);
    assert_eq!((tenant_one.status, tenant_two.status), (201, 201));
    assert_ne!(tenant_one.body, tenant_two.body, "two tenants, two orders");
    assert_eq!(tenant_two.header("idempotent-replayed"), None);

    // Another actor of tenant 1 with the same key does not see actor 1's result; its
    // request executes and meets tenant 1's clientOrderRef.
    let other_actor = app
        .api
        .create(&token(1, 2, ALL_PERMISSIONS), "shared", &body);
    assert_eq!(
        other_actor.status_code(),
        (409, Some("client_order_ref_conflict".into()))
    );
    // A tenant header is not a way in: the token decides.
    let bearer = format!("Bearer {}", token(2, 1, ALL_PERMISSIONS));
    let reply = app.api.send(
        "POST",
        "/api/orders",
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", b"shared"),
            ("content-type", b"application/json"),
            ("x-tenant-id", b"1"),
        ],
        body.as_bytes(),
    );
    assert_eq!(reply.body, tenant_two.body);
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    assert_eq!(app.db.order_ids(2, "REF-1").await.len(), 1);
    app.finish().await;
}
