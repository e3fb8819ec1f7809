//! What a token must say: the issuer exactly, the audience among `aud`, `exp` and `nbf`
//! with the leeway; and how a provider's claims name the tenant and the permissions.

use serde_json::json;
use tests::{AUDIENCE, ISSUER, valid_claims};

use crate::support::App;

#[tokio::test]
async fn issuer_audience_and_times_are_checked_within_the_leeway() {
    let app = App::start(&[]).await;
    let now = chrono::Utc::now().timestamp();
    let base = valid_claims(1, 1, "orders:create");
    let with = |changes: serde_json::Value| {
        let mut claims = base.clone();
        for (name, value) in changes.as_object().unwrap() {
            if value.is_null() {
                claims.as_object_mut().unwrap().remove(name);
            } else {
                claims[name] = value.clone();
            }
        }
        claims
    };
    let cases = [
        (json!({"iss": format!("{ISSUER}/")}), 401, "another issuer"),
        (json!({"iss": null}), 401, "no issuer"),
        (
            json!({"aud": ["other", AUDIENCE]}),
            201,
            "an audience among several",
        ),
        (json!({"aud": ["other"]}), 401, "another audience"),
        (json!({"aud": null}), 401, "no audience"),
        (json!({"exp": null}), 401, "no expiry"),
        (json!({"exp": now - 10}), 201, "expired within the leeway"),
        (json!({"exp": now - 120}), 401, "expired"),
        (
            json!({"nbf": now + 10}),
            201,
            "not yet valid within the leeway",
        ),
        (json!({"nbf": now + 120}), 401, "not yet valid"),
        (json!({"tid": "1"}), 201, "the tenant as a decimal string"),
        (json!({"tid": "01"}), 401, "a tenant with a leading zero"),
        (json!({"sub": "x"}), 401, "an actor that is not a number"),
        (
            json!({"scope": null, "scp": ["orders:read", "orders:create"]}),
            201,
            "permissions as an scp array",
        ),
        (
            json!({"scope": "orders:read"}),
            403,
            "without the permission",
        ),
    ];
    for (n, (changes, status, what)) in cases.into_iter().enumerate() {
        let token = app.idp.mint("rs256", &with(changes));
        let reply = app.create(&token, &format!("key-{n}"));
        assert_eq!(reply.status, status, "{what}");
    }
    app.finish().await;
}

#[tokio::test]
async fn the_tenant_claim_is_configurable_and_tenants_stay_apart() {
    let app = App::start(&[("AUTH_TENANT_CLAIM", "org_id")]).await;
    let mut seven = valid_claims(1, 1, "orders:create orders:read");
    seven["org_id"] = json!("7");
    let created = app.create(&app.idp.mint("es256", &seven), "key-1");
    assert_eq!(created.status, 201);
    let location = created.header("location").unwrap();
    assert_eq!(
        app.api
            .get(&location, Some(&app.idp.mint("es256", &seven)))
            .status,
        200
    );
    let mut eight = seven.clone();
    eight["org_id"] = json!(8);
    assert_eq!(
        app.api
            .get(&location, Some(&app.idp.mint("es256", &eight)))
            .status,
        404,
        "another tenant's order"
    );
    let only_tid = valid_claims(7, 1, "orders:read");
    assert_eq!(
        app.api
            .get(&location, Some(&app.idp.mint("es256", &only_tid)))
            .status,
        401,
        "tid is not read when another claim is configured"
    );
    app.finish().await;
}

#[tokio::test]
async fn claims_are_read_as_strictly_as_a_shared_secret_tokens() {
    let app = App::start(&[]).await;
    let now = chrono::Utc::now().timestamp();
    let fixed = format!(
        r#""aud":"{AUDIENCE}","sub":"1","iat":{now},"exp":{}"#,
        now + 600
    );
    let cases = [
        (
            format!(r#"{{"iss":"{ISSUER}",{fixed},"tid":1,"scope":"orders:create"}}"#),
            201,
            "the control: as a provider writes them",
        ),
        (
            format!(r#"{{"iss":["{ISSUER}"],{fixed},"tid":1,"scope":"orders:create"}}"#),
            401,
            "an issuer array holding the issuer",
        ),
        (
            format!(r#"{{"iss":"{ISSUER}",{fixed},"tid":2,"tid":1,"scope":"orders:create"}}"#),
            401,
            "a tenant claim twice",
        ),
        (
            format!(r#"{{"iss":"{ISSUER}",{fixed},"tid":1,"scp":["orders:read orders:create"]}}"#),
            401,
            "two permissions in one scp element",
        ),
    ];
    for (n, (claims, status, what)) in cases.into_iter().enumerate() {
        let token = app.idp.mint_text("rs256", &claims);
        let reply = app.create(&token, &format!("strict-{n}"));
        assert_eq!(reply.status, status, "{what}");
    }
    app.finish().await;
}
