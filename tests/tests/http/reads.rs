//! The read routes of `docs/http-api.md#routes` (orders, probes, metrics), and what the
//! logs may hold.

use tests::{ALL_PERMISSIONS, order_json, token};

use crate::support::{App, full_token};

#[tokio::test]
async fn an_order_reads_back_in_the_create_shape_only_within_its_tenant() {
    let app = App::start().await;
    let created = app
        .api
        .create(&full_token(), "read-1", &order_json("REF-1", "SKU-1", 3));
    let location = created.header("location").unwrap();

    let own = app.api.get(&location, Some(&full_token()));
    assert_eq!(own.status, 200);
    assert_eq!(own.body, created.body, "the same shape and values");
    let colleague = app.api.get(&location, Some(&token(1, 9, "orders:read")));
    assert_eq!(colleague.status, 200, "orders belong to the tenant");

    let other_tenant = app.api.get(&location, Some(&token(2, 1, ALL_PERMISSIONS)));
    let missing = app.api.get("/api/orders/999999", Some(&full_token()));
    assert_eq!(other_tenant.status_code(), (404, Some("not_found".into())));
    assert_eq!(
        other_tenant.body, missing.body,
        "nothing tells the two apart"
    );
    for odd in ["/api/orders/abc", "/api/orders/0", "/api/orders/-1"] {
        assert_eq!(app.api.get(odd, Some(&full_token())).status, 404, "{odd}");
    }

    assert_eq!(
        app.api
            .get(&location, Some(&token(1, 1, "orders:create")))
            .status_code(),
        (403, Some("forbidden".into()))
    );
    let anonymous = app.api.get(&location, None);
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.header("www-authenticate").is_some());
    app.finish().await;
}

#[tokio::test]
async fn health_readiness_and_metrics_answer() {
    let app = App::start().await;
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 1);
    let _ = app.api.create(&token, "m-1", &body);
    let _ = app.api.create(&token, "m-1", &body);
    let _ = app
        .api
        .create(&token, "m-1", &order_json("REF-1", "SKU-1", 2));
    let _ = app.api.create(&token, "m-2", &body);

    assert_eq!(app.api.get("/healthz", None).status, 200);
    assert_eq!(app.api.get("/readyz", None).status, 200);
    let metrics = app.api.get("/metrics", None);
    assert_eq!(metrics.status, 200);
    let text = String::from_utf8_lossy(&metrics.body);
    for outcome in ["executed", "replayed", "key_reused", "rejected"] {
        let line = format!(
            "idempotent_outcomes_total{{operation=\"orders.create.v1\",outcome=\"{outcome}\"}} 1"
        );
        assert!(text.contains(&line), "missing {line}\n{text}");
    }
    assert!(
        text.contains(r#"http_request_duration_seconds_count{method="POST",route="/api/orders",status="201"} 2"#),
        "{text}"
    );
    app.finish().await;
}

/// Sends an executed create, a key reuse, a refused body and a forged token to a server
/// logging in `format`, waits for every request's line, checks that none holds a secret,
/// and returns the log and the executed create's request id.
async fn log_of_four_requests(format: &str) -> (String, String) {
    let app = App::start_with(|o| o.env.push(("LOG_FORMAT".into(), format.into()))).await;
    let token = full_token();
    let body = order_json("SECRET-REF-7", "SECRET-SKU-7", 1);
    let replies = [
        app.api.create(&token, "log-1", &body),
        app.api.create(
            &token,
            "log-1",
            &order_json("SECRET-REF-8", "SECRET-SKU-8", 1),
        ),
        app.api.create(
            &token,
            "log-2",
            r#"{"clientOrderRef":"SECRET-REF-9","x":1}"#,
        ),
        app.api.create("SECRET.TOKEN.VALUE", "log-3", &body),
    ];
    // Each request's line is written just after its response: wait for every one of them,
    // so the lines checked for secrets below are all there.
    let request_ids: Vec<String> = replies
        .iter()
        .map(|reply| reply.header("x-request-id").unwrap())
        .collect();
    for request_id in &request_ids {
        app.service.wait_for_log(request_id).unwrap();
    }
    let log = app.service.log();
    for secret in [token.as_str(), "SECRET", "log-1"] {
        assert!(!log.contains(secret), "the log holds {secret}:\n{log}");
    }
    app.finish().await;
    (log, request_ids[0].clone())
}

#[tokio::test]
async fn text_logs_carry_request_ids_and_outcomes_but_never_tokens_or_bodies() {
    let (log, request_id) = log_of_four_requests("text").await;

    let lines: Vec<&str> = log.lines().filter(|l| l.contains(&request_id)).collect();
    assert!(!lines.is_empty(), "{log}");
    for line in lines {
        assert!(
            line.contains("idempotent.outcome=\"executed\"") && line.contains("record_id="),
            "{line}"
        );
    }
}

#[tokio::test]
async fn json_logs_are_one_object_per_line_with_the_request_fields_and_no_secrets() {
    let (log, request_id) = log_of_four_requests("json").await;

    let mut finished = None;
    for line in log.lines() {
        let object: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object ({e}): {line}"));
        for member in ["timestamp", "level", "target", "message"] {
            assert!(object.get(member).is_some(), "no {member}: {line}");
        }
        if object["span"]["request_id"] == request_id.as_str()
            && object["message"] == "request finished"
        {
            finished = Some(object);
        }
    }
    let finished = finished.unwrap_or_else(|| panic!("no finished line:\n{log}"));
    assert_eq!(finished["status"], 201);
    assert!(finished["elapsed_us"].is_u64(), "{finished}");
    let span = &finished["span"];
    assert_eq!(span["route"], "/api/orders");
    assert_eq!(span["idempotent.outcome"], "executed");
    assert!(span["record_id"].is_u64(), "{finished}");
}
