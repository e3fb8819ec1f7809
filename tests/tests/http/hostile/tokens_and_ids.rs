//! Tokens whose claims are odd, and order ids spelled oddly: read strictly, refused
//! clearly, nothing stored.

use adapters::http::Claims;
use tests::{TEST_SECRET, order_json};

use super::app;
use crate::support::{App, full_token};

/// A token of tenant 1, actor 1 with `scope`, valid from `nbf` and issued at `iat`
/// (seconds from now), expiring in an hour.
fn token_with(scope: &str, nbf: Option<i64>, iat: Option<i64>, exp: i64) -> String {
    let now = chrono::Utc::now().timestamp();
    adapters::http::TokenKeys::hs256(TEST_SECRET.as_bytes())
        .unwrap()
        .mint(&Claims {
            sub: "1".to_owned(),
            tid: 1,
            scope: scope.to_owned(),
            exp: now + exp,
            nbf: nbf.map(|offset| now + offset),
            iat: iat.map(|offset| now + offset),
        })
        .unwrap()
}

#[tokio::test]
async fn token_claims_are_read_strictly() {
    let app = App::start_with(|options| {
        options
            .env
            .push(("AUTH_MAX_TOKEN_LIFETIME_SECS".into(), "7200".into()));
    })
    .await;
    let create = |token: &str, key: &str| {
        app.api
            .create(token, key, &order_json(&format!("REF-{key}"), "SKU-1", 1))
            .status
    };
    let scope = "orders:create orders:read";
    assert_eq!(
        create(
            &token_with(scope, Some(3600), Some(0), 3600 * 2),
            "nbf-ahead"
        ),
        401
    );
    assert_eq!(
        create(&token_with(scope, Some(10), Some(0), 3600), "nbf-in-leeway"),
        201
    );
    assert_eq!(
        create(
            &token_with("orders:read\torders:create", None, Some(0), 3600),
            "tab"
        ),
        403,
        "a tab separates no permissions"
    );
    assert_eq!(
        create(&token_with(scope, None, Some(0), 7300), "too-long"),
        401
    );
    assert_eq!(create(&token_with(scope, None, None, 600), "no-iat"), 401);
    assert_eq!(
        create(&token_with(scope, None, Some(0), 7100), "within"),
        201
    );
    app.finish().await;
}

#[tokio::test]
async fn an_order_id_has_one_spelling() {
    let app = app().await;
    let token = full_token();
    assert_eq!(
        app.api
            .create(&token, "one", &order_json("REF-1", "SKU-1", 1))
            .status,
        201
    );
    assert_eq!(app.api.get("/api/orders/1", Some(&token)).status, 200);
    for path in [
        "/api/orders/01",
        "/api/orders/%31",
        "/api/orders/+1",
        "/api/orders/1%20",
    ] {
        let reply = app.api.get(path, Some(&token));
        assert_eq!(
            reply.status_code(),
            (404, Some("not_found".into())),
            "{path}"
        );
    }
    for (n, order) in ["01", "%31"].into_iter().enumerate() {
        let reply = app.api.capture(
            &token,
            order,
            &format!("pay-{n}"),
            r#"{"amount":1,"currency":"JPY"}"#,
        );
        assert_eq!(
            reply.status_code(),
            (404, Some("not_found".into())),
            "{order}"
        );
    }
    app.finish().await;
}
