//! A provider that is down: at start the process serves `503` until the keys load; later
//! a failed refresh keeps the keys it has. And the configuration it refuses.

use std::time::Duration;

use tests::{
    IdentityProvider, TEST_SECRET, run_command, valid_claims, wait_for_metric, wait_until,
};

use crate::support::App;

#[tokio::test]
async fn a_provider_down_at_start_is_503_until_its_keys_load_and_a_later_outage_keeps_them() {
    let idp = IdentityProvider::start();
    idp.set_down(true);
    let app = App::start_with(idp, &[("AUTH_JWKS_MIN_REFRESH_SECS", "2")]).await;
    let token = app
        .idp
        .mint("rs256", &valid_claims(1, 1, "orders:create orders:read"));
    wait_for_metric(
        &app.api,
        "auth_jwks_refresh_failures_total",
        "",
        1.0,
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(app.api.get("/readyz", None).status, 503);
    let refused = app.create(&token, "key-1");
    assert_eq!(refused.status_code(), (503, Some("unavailable".to_owned())));
    assert_eq!(refused.header("retry-after").as_deref(), Some("1"));
    assert_eq!(app.db.total_orders().await, 0);

    app.idp.set_down(false);
    app.wait_until_ready().await;
    assert_eq!(app.create(&token, "key-1").status, 201);

    // Down again: a refresh (asked for by an unknown key) fails and the keys stay.
    app.idp.set_down(true);
    let failures = app.api.metric("auth_jwks_refresh_failures_total");
    let unknown = app.idp.mint("next", &valid_claims(1, 1, "orders:read"));
    wait_until(
        Duration::from_secs(20),
        "a failed refresh",
        || async {
            let _ = app.api.get("/api/orders/1", Some(&unknown));
            app.api.metric("auth_jwks_refresh_failures_total")
        },
        |now| *now > failures,
    )
    .await;
    assert_eq!(app.create(&token, "key-2").status, 201, "the keys stayed");
    assert_eq!(app.api.get("/readyz", None).status, 200);
    app.finish().await;
}

#[tokio::test]
async fn a_secret_beside_a_key_set_or_a_key_set_without_its_issuer_stops_the_start() {
    let idp = IdentityProvider::start();
    let url = idp.url();
    let base = [
        ("DATABASE_URL", "sqlite:///nonexistent/never-opened.sqlite3"),
        ("AUTH_JWKS_URL", url.as_str()),
        ("AUTH_ISSUER", "https://idp"),
        ("AUTH_AUDIENCE", "orders-api"),
    ];
    let mut both = base.to_vec();
    both.push(("AUTH_JWT_SECRET", TEST_SECRET));
    let (status, _, stderr) = run_command(&["serve"], &both);
    assert!(!status.success());
    assert!(
        stderr.contains("AUTH_JWT_SECRET") && stderr.contains("AUTH_JWKS_URL"),
        "{stderr}"
    );
    assert!(!stderr.contains(TEST_SECRET), "the secret is never echoed");
    let without_issuer: Vec<_> = base
        .iter()
        .copied()
        .filter(|(name, _)| *name != "AUTH_ISSUER")
        .collect();
    let (status, _, stderr) = run_command(&["serve"], &without_issuer);
    assert!(
        !status.success() && stderr.contains("AUTH_ISSUER"),
        "{stderr}"
    );
}
