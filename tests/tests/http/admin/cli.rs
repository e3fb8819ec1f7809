//! `server admin ...`: the same use cases against the database directly, with the
//! operator named on the command line in the trail.

use tests::run_command;

use super::support::{audit_rows, operator_token, pending_capture};
use crate::support::App;

fn admin(app: &App, args: &[&str]) -> (bool, serde_json::Value, String) {
    let mut all = vec!["admin", "--operator", "alice@example.com"];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = run_command(&all, &[("DATABASE_URL", app.db.url())]);
    let json = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (status.success(), json, stderr)
}

#[tokio::test]
async fn the_command_line_lists_cancels_and_is_named_in_the_trail() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    let (ok, listed, stderr) = admin(&app, &["operations", "list", "--state", "pending"]);
    assert!(ok, "{stderr}");
    assert_eq!(listed["items"][0]["operationId"], id.as_str());
    assert!(listed["nextCursor"].is_null());

    let (ok, cancelled, stderr) = admin(&app, &["operations", "cancel", &id]);
    assert!(ok, "{stderr}");
    assert_eq!(cancelled["state"], "cancelled");
    let (ok, again, stderr) = admin(&app, &["operations", "cancel", &id]);
    assert!(!ok && again.is_null(), "a refusal prints no JSON");
    assert!(stderr.contains("the operation is cancelled"), "{stderr}");

    let (status, _, stderr) = run_command(
        &["admin", "operations", "show", &id, "--operator", "bob"],
        &[("DATABASE_URL", app.db.url())],
    );
    assert!(
        status.success(),
        "--operator after the subcommand: {stderr}"
    );
    let (ok, trail, _) = admin(&app, &["audit", "--limit", "10"]);
    assert!(ok);
    assert_eq!(trail["items"][0]["who"]["operator"], "alice@example.com");
    assert!(trail["items"][0]["who"]["tenantId"].is_null());
    let over_http = app
        .api
        .get("/api/admin/audit", Some(&operator_token()))
        .json();
    assert_eq!(
        over_http["items"], trail["items"],
        "the same JSON either way"
    );
    app.finish().await;
}

#[tokio::test]
async fn bad_arguments_are_refused_before_anything_is_written() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    let (ok, _, stderr) = admin(
        &app,
        &["operations", "list", "--state", "done", "--limit", "0"],
    );
    assert!(!ok);
    assert!(
        stderr.contains("state: must be an operation state")
            && stderr.contains("limit: must be an integer from 1 to 100"),
        "{stderr}"
    );
    let (ok, _, stderr) = admin(&app, &["operations", "cancel", "not-an-id"]);
    assert!(!ok && stderr.contains("not an operation id"), "{stderr}");
    let (ok, _, stderr) = admin(
        &app,
        &[
            "operations",
            "resolve",
            &id,
            "--succeeded",
            "--charge",
            "ch 1",
        ],
    );
    assert!(!ok && stderr.contains("--charge"), "{stderr}");
    let (status, _, stderr) = run_command(
        &["admin", "operations", "cancel", &id],
        &[("DATABASE_URL", app.db.url())],
    );
    assert!(
        !status.success() && stderr.contains("--operator"),
        "{stderr}"
    );
    let (status, _, stderr) = run_command(
        &["admin", "--operator", "al ice", "operations", "cancel", &id],
        &[("DATABASE_URL", app.db.url())],
    );
    assert!(!status.success() && stderr.contains("operator"), "{stderr}");
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}
