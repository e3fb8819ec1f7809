//! The zero-configuration start: the embedded store under `./data/`, a development
//! secret beside it, and a ready token in the log.

use tests::{Api, Service, ServiceOptions, order_json, run_command_in};

#[tokio::test]
async fn with_no_configuration_the_server_runs_on_the_embedded_store() {
    let dir = std::env::temp_dir().join(format!("zero-config-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let options = ServiceOptions {
        auth_secret: None,
        current_dir: Some(dir.clone()),
        ..ServiceOptions::new("")
    };
    let service = Service::start(&options);
    service.wait_for_log("curl -si http://").unwrap();
    let log = service.log();
    assert!(
        log.contains("store=\"sqlite\""),
        "the log names the store:\n{log}"
    );
    assert!(
        dir.join("data/orders.sqlite3").exists(),
        "the file is under ./data/"
    );
    assert!(
        dir.join("data/dev-jwt-secret").exists(),
        "the secret is kept beside it"
    );

    // The logged token and `server token` (same secret) are both accepted.
    let logged = log
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("eyJ"))
        .expect("a ready token in the log")
        .to_owned();
    assert!(
        log.contains("curl -si http://"),
        "a curl line to try:\n{log}"
    );
    let (status, minted, stderr) = run_command_in(
        &dir,
        &[
            "token",
            "--tenant",
            "1",
            "--actor",
            "1",
            "--scope",
            "orders:create orders:read",
        ],
        &[],
    );
    assert!(status.success(), "{stderr}");
    let api = Api::new(service.base_url());
    let body = order_json("REF-1", "SKU-1", 1);
    let created = api.create(&logged, "zero-1", &body);
    assert_eq!(created.status, 201, "{:?}", created.code());
    let replay = api.create(minted.trim(), "zero-1", &body);
    assert_eq!(replay.body, created.body);
    assert_eq!(
        replay.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    drop(service);

    // A restart keeps the data and the secret: the old token still replays.
    let service = Service::start(&options);
    let again = Api::new(service.base_url()).create(&logged, "zero-1", &body);
    assert_eq!(again.body, created.body);
    drop(service);
    let _ = std::fs::remove_dir_all(&dir);
}
