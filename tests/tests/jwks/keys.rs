//! Which keys and algorithms verify, rotation without a restart, and a flood of tokens
//! naming keys that do not exist.

use std::time::{Duration, Instant};

use tests::{TEST_SECRET, valid_claims, wait_until};

use crate::support::App;

#[tokio::test]
async fn every_accepted_algorithm_verifies_and_nothing_weaker_does() {
    let app = App::start(&[]).await;
    let claims = valid_claims(1, 1, "orders:create");
    for kid in ["rs256", "ps256", "es256", "eddsa"] {
        let created = app.create(&app.idp.mint(kid, &claims), &format!("key-{kid}"));
        assert_eq!(created.status, 201, "{kid}");
    }
    let refused = [
        ("weak", "an RSA key of 1024 bits"),
        ("enc", "a key published for encryption"),
        ("none", "an unsigned token"),
        ("next", "a key that is not published"),
    ];
    let hs256 = format!("hs256:{TEST_SECRET}");
    // The classic confusion: HS256 keyed with the RSA key's public PEM, under its kid.
    let confused = format!("hs256:{}", app.idp.public_pem("rs256"));
    for (kid, what) in refused.iter().copied().chain([
        (hs256.as_str(), "HS256"),
        (confused.as_str(), "HS256 keyed with the RSA public key"),
    ]) {
        let reply = app.create(&app.idp.mint(kid, &claims), "key-refused");
        assert_eq!(reply.status, 401, "{what}");
        assert_eq!(
            reply.header("www-authenticate").as_deref(),
            Some("Bearer error=\"invalid_token\""),
            "{what}"
        );
    }
    assert_eq!(app.db.total_orders().await, 4);
    app.finish().await;
}

#[tokio::test]
async fn a_rotated_key_works_after_one_fetch_and_a_removed_key_stops_after_the_next() {
    let app = App::start(&[("AUTH_JWKS_MIN_REFRESH_SECS", "1")]).await;
    let claims = valid_claims(1, 1, "orders:create orders:read");
    let old = app.idp.mint("rs256", &claims);
    let new = app.idp.mint("next", &claims);
    assert_eq!(app.api.get("/api/orders/1", Some(&new)).status, 401);
    // Verified once, so remembered: the set's rotation must still end it.
    assert_eq!(app.api.get("/api/orders/1", Some(&old)).status, 404);

    let before = app.idp.fetches();
    app.idp.publish(&["next"]);
    wait_until(
        Duration::from_secs(20),
        "the new key accepted",
        || async { app.api.get("/api/orders/1", Some(&new)).status },
        |status| *status == 404,
    )
    .await;
    assert_eq!(
        app.idp.fetches(),
        before + 1,
        "one fetch brought the new key"
    );
    // The set just fetched no longer holds the old key: refused at once, remembered or not.
    assert_eq!(app.api.get("/api/orders/1", Some(&old)).status, 401);
    app.finish().await;
}

#[tokio::test]
async fn a_flood_of_unknown_keys_costs_at_most_one_fetch_per_interval() {
    let app = App::start(&[]).await;
    let tokens = app
        .idp
        .mint_many("random", &valid_claims(1, 1, "orders:read"), 1000);
    let before = app.idp.fetches();
    let started = Instant::now();
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let workers: Vec<_> = tokens
            .chunks(125)
            .map(|chunk| {
                let api = &app.api;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|token| api.get("/api/orders/1", Some(token)).status)
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect()
    });
    let elapsed = started.elapsed();
    assert!(
        statuses.iter().all(|status| *status == 401),
        "every one refused"
    );
    let intervals = elapsed.as_secs() / 30 + 1;
    let fetched = app.idp.fetches() - before;
    println!("1000 unknown keys in {elapsed:?}: {fetched} fetches");
    assert!(fetched <= intervals, "{fetched} fetches in {elapsed:?}");
    app.finish().await;
}

#[tokio::test]
async fn a_token_verified_once_is_served_from_memory_afterwards() {
    let app = App::start(&[]).await;
    let token = app
        .idp
        .mint("rs256", &valid_claims(1, 1, "orders:create orders:read"));
    let hits = || app.api.metric("auth_verified_token_hits_total");
    let before = hits();
    for n in 0..3 {
        assert_eq!(app.create(&token, &format!("mem-{n}")).status, 201);
    }
    assert_eq!(
        hits() - before,
        2.0,
        "the first request verified the signature, the next two did not"
    );
    app.finish().await;
}
