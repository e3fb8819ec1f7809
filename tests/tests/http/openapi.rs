//! `GET /openapi.json` (`docs/http-api.md#get-openapijson`): the document is served, and a
//! real server on a real database answers every request schemathesis generates from it
//! (valid and invalid ones) as the document says.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tests::{ALL_PERMISSIONS, forged_token, token};

use crate::support::{App, full_token};

/// Every route of `docs/http-api.md#routes`, as the document names it.
const ROUTES: [(&str, &str); 19] = [
    ("/api/orders", "post"),
    ("/api/orders/{orderId}", "get"),
    ("/api/orders/{orderId}/cancel", "post"),
    ("/api/orders/{orderId}/payments", "post"),
    ("/api/orders/{orderId}/refunds", "post"),
    ("/api/operations/{operationId}", "get"),
    ("/api/admin/operations", "get"),
    ("/api/admin/operations/{operationId}", "get"),
    ("/api/admin/operations/{operationId}/resolve", "post"),
    ("/api/admin/operations/{operationId}/retry", "post"),
    ("/api/admin/operations/{operationId}/cancel", "post"),
    ("/api/admin/idempotency-keys", "get"),
    ("/api/admin/idempotency-keys", "delete"),
    ("/api/admin/audit", "get"),
    ("/healthz", "get"),
    ("/readyz", "get"),
    ("/metrics", "get"),
    ("/openapi.json", "get"),
    ("/problems/{code}", "get"),
];

/// The checks the main run holds every response to: the document's statuses, headers and
/// schemas, schema-valid data accepted and invalid data refused, and auth enforced.
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
                      response_headers_conformance,response_schema_conformance,\
                      negative_data_rejection,positive_data_acceptance,ignored_auth";

/// What the data checks accept (`schemathesis.toml`). Valid data may still meet an order
/// that does not exist (404), a business conflict (409), or a key already used with other
/// values (422): the generated keys repeat. Invalid data is 400, or 404 for a path id no
/// order can have; the size and media type checks come first (413, 415).
const DATA_CHECKS: &str = r#"[checks.positive_data_acceptance]
expected-statuses = ["200", "201", "202", "404", "409", "422"]

[checks.negative_data_rejection]
expected-statuses = ["400", "404", "413", "415"]
"#;

/// The checks of the runs whose token is refused: every answer as documented.
const REFUSAL_CHECKS: &str = "not_a_server_error,status_code_conformance,\
                              content_type_conformance,response_headers_conformance,\
                              response_schema_conformance";

/// Test cases per operation: enough for well over 300 requests in all.
const MAX_EXAMPLES: &str = "200";

/// The fewest requests a run must have sent.
const MIN_REQUESTS: u64 = 300;

/// How long the whole run may take before it counts as hung.
const RUN_DEADLINE: Duration = Duration::from_secs(600);

#[tokio::test]
async fn the_document_is_openapi_3_1_with_every_route_and_needs_no_token() {
    let app = App::start().await;
    let reply = app.api.get("/openapi.json", None);
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    assert!(reply.header("x-request-id").is_some());
    let document = reply.json();
    let version = document["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3.1"), "openapi: {version:?}");
    for (path, method) in ROUTES {
        assert!(
            document["paths"][path][method].is_object(),
            "{method} {path} is not in the document"
        );
    }
    app.finish().await;
}

/// A problem's `type` is a page of this server's that says what the problem means and
/// whether the same request with the same key can succeed later; it needs no token.
#[tokio::test]
async fn a_problems_type_resolves_to_its_description() {
    let app = App::start().await;
    let body = tests::order_json("REF-T", "SKU-1", 1);
    for (reply, retry_verdict) in [
        (
            app.api.create("not-a-token", "type-1", &body),
            "May succeed later",
        ),
        (
            app.api.send(
                "POST",
                "/api/orders",
                &[
                    (
                        "authorization",
                        format!("Bearer {}", full_token()).as_bytes(),
                    ),
                    ("idempotency-key", b"type-2"),
                    ("content-type", b"application/json"),
                ],
                b"{}",
            ),
            "Gets this answer again",
        ),
    ] {
        let problem = reply.json();
        let code = problem["code"].as_str().unwrap().to_owned();
        let uri = problem["type"].as_str().unwrap();
        assert_eq!(uri, format!("/problems/{code}"));
        let page = app.api.get(uri, None);
        assert_eq!(page.status, 200, "{uri}");
        assert_eq!(
            page.header("content-type").as_deref(),
            Some("text/html; charset=utf-8")
        );
        let text = String::from_utf8_lossy(&page.body);
        assert!(text.contains(&format!("<code>{code}</code>")), "{text}");
        assert!(text.contains(retry_verdict), "{code}: {text}");
    }
    let unknown = app.api.get("/problems/no_such_problem", None);
    assert_eq!(unknown.status_code(), (404, Some("not_found".into())));
    app.finish().await;
}

/// One schemathesis run against `app` in a scratch directory of its own, loading the
/// document from a file (so that `GET /openapi.json` itself is tested too: schemathesis
/// skips the operation it loaded the document from). Panics, with the server's log, when
/// a check failed; returns the run's JSON report.
#[allow(clippy::print_stdout)] // the run's own report, for whoever reads the test's output
fn schemathesis_run(
    app: &App,
    token: &str,
    checks: &str,
    phases: &str,
    examples: &str,
) -> serde_json::Value {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("schemathesis-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&scratch).unwrap();
    let document = app.api.get("/openapi.json", None);
    assert_eq!(document.status, 200);
    let schema = scratch.join("openapi.json");
    std::fs::write(&schema, &document.body).unwrap();
    std::fs::write(scratch.join("schemathesis.toml"), DATA_CHECKS).unwrap();

    let mut command = Command::new(schemathesis());
    command
        .current_dir(&scratch)
        .env(
            "SCHEMATHESIS_HOOKS",
            concat!(env!("CARGO_MANIFEST_DIR"), "/schemathesis/hooks.py"),
        )
        .arg("run")
        .arg(&schema)
        .args(["--url", app.service.base_url()])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--checks", checks])
        .args(["--mode", "all"])
        .args(["--phases", phases])
        .args(["--max-examples", examples])
        .args(["--request-timeout", "10"])
        .args(["--generation-database", "none"])
        .args(["--report", "json", "--report-dir", "report"])
        .args(["--no-color", "--output-truncate", "false"]);
    println!("{}", shown(&command));
    let (success, output) = run(command, &scratch);
    println!("{output}");
    assert!(
        success,
        "schemathesis found responses that do not conform to the document (server log below; \
         files in {})\n{}",
        scratch.display(),
        app.service.log()
    );
    let report = json_report(&scratch.join("report"));
    std::fs::remove_dir_all(&scratch).ok();
    report
}

/// Answers with `status` on `route` so far, from the server's request histogram.
fn answered(app: &App, route: &str, status: u16) -> f64 {
    app.api
        .labelled_metric(
            "http_request_duration_seconds_count",
            &format!(r#"method="POST",route="{route}",status="{status}""#),
        )
        .unwrap_or(0.0)
}

#[tokio::test]
async fn schemathesis_finds_no_response_that_breaks_the_document() {
    let app = App::start().await;
    let report = schemathesis_run(
        &app,
        &full_token(),
        CHECKS,
        "examples,coverage,fuzzing",
        MAX_EXAMPLES,
    );
    let generated = report["test_cases"]["generated"].as_u64().unwrap_or(0);
    let tested = report["operations"]["tested"].as_u64().unwrap_or(0);
    let rejected: u64 = report["valid_rates"]
        .as_object()
        .into_iter()
        .flat_map(|operations| operations.values())
        .filter_map(|phases| phases.as_object())
        .flat_map(|phases| phases.values())
        .filter_map(|rates| rates["rejected"].as_u64())
        .sum();
    assert!(
        generated >= MIN_REQUESTS,
        "only {generated} requests generated"
    );
    assert_eq!(tested, ROUTES.len() as u64, "every operation is tested");
    assert!(rejected > 0, "no invalid request was sent");
    println!("schemathesis: {generated} requests, {rejected} of them refused by the server");

    // The same document holds for callers the server refuses: a token that grants nothing
    // (403) and one it cannot verify (401, with its challenge).
    for (token, status) in [
        (token(1, 1, "orders:nothing"), 403),
        (forged_token(1, 1, ALL_PERMISSIONS), 401),
    ] {
        schemathesis_run(&app, &token, REFUSAL_CHECKS, "examples,coverage", "20");
        for route in [
            "/api/orders",
            "/api/orders/{order_id}/payments",
            "/api/orders/{order_id}/cancel",
            "/api/orders/{order_id}/refunds",
        ] {
            assert!(
                answered(&app, route, status) > 0.0,
                "no {status} on {route}"
            );
        }
    }
    app.finish().await;
}

/// The `st` executable that `scripts/test` installs (pinned, in a virtual environment
/// under `target/`).
fn schemathesis() -> PathBuf {
    let Some(st) = std::env::var_os("SCHEMATHESIS") else {
        panic!(
            "SCHEMATHESIS is not set. Run the tests with scripts/test, which installs \
             schemathesis into target/schemathesis-venv and sets SCHEMATHESIS to its `st`; \
             or set it to an `st` of schemathesis 4."
        );
    };
    let st = PathBuf::from(st);
    assert!(st.is_file(), "SCHEMATHESIS={} is not a file", st.display());
    st
}

/// Runs `command` with its output in files under `dir`, killing it past the deadline.
/// Whether it exited 0, and what it printed.
fn run(mut command: Command, dir: &Path) -> (bool, String) {
    let out_path = dir.join("st.out");
    let out = std::fs::File::create(&out_path).unwrap();
    let err = out.try_clone().unwrap();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > RUN_DEADLINE {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = std::fs::read_to_string(&out_path).unwrap_or_default();
    match status {
        Some(status) => (status.success(), output),
        None => (false, format!("{output}\n(killed after {RUN_DEADLINE:?})")),
    }
}

/// The run's JSON report: the one file in `dir`.
fn json_report(dir: &Path) -> serde_json::Value {
    let path = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "json"))
        .unwrap_or_else(|| panic!("no JSON report in {}", dir.display()));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The command line, with the token left out.
fn shown(command: &Command) -> String {
    let args: Vec<String> = command
        .get_args()
        .map(|arg| {
            let arg = arg.to_string_lossy();
            if arg.starts_with("Authorization:") {
                "'Authorization: Bearer <token>'".to_owned()
            } else {
                arg.into_owned()
            }
        })
        .collect();
    format!(
        "{} {}",
        command.get_program().to_string_lossy(),
        args.join(" ")
    )
}
