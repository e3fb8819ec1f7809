//! The zero-configuration start: the embedded store under `./data/`, a development
//! secret beside it, and a ready token in the log.

use std::path::PathBuf;

use tests::{
    Api, Service, ServiceOptions, order_json, run_binary_in, run_command_in,
    server_without_test_hooks_binary,
};

/// A fresh working directory for a server started with no configuration; removed when
/// the test ends.
struct Workdir(PathBuf);

impl Workdir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// No `DATABASE_URL`, no `AUTH_JWT_SECRET`: the embedded store under `./data/`.
    fn options(&self) -> ServiceOptions {
        ServiceOptions {
            auth_secret: None,
            current_dir: Some(self.0.clone()),
            ..ServiceOptions::new("")
        }
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn with_no_configuration_the_server_runs_on_the_embedded_store() {
    let workdir = Workdir::new("zero-config");
    let dir = &workdir.0;
    let options = workdir.options();
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
    let logged = ready_token(&log);
    assert!(
        log.contains("curl -si http://"),
        "a curl line to try:\n{log}"
    );
    let (status, minted, stderr) = run_command_in(
        dir,
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
}

/// The token the server logs at its first start.
fn ready_token(log: &str) -> String {
    log.lines()
        .map(str::trim)
        .find(|line| line.starts_with("eyJ"))
        .expect("a ready token in the log")
        .to_owned()
}

/// The permission bits of `path`.
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_embedded_store_keeps_its_files_to_its_owner() {
    let workdir = Workdir::new("private-store");
    let dir = &workdir.0;
    let options = workdir.options();
    let service = Service::start(&options);
    service.wait_for_log("curl -si http://").unwrap();
    // A write, so SQLite's -wal and -shm files exist while the pool holds its connection.
    let created = Api::new(service.base_url()).create(
        &ready_token(&service.log()),
        "private-1",
        &order_json("REF-1", "SKU-1", 1),
    );
    assert_eq!(created.status, 201, "{:?}", created.code());
    let data = dir.join("data");
    assert_eq!(mode(&data), 0o700, "the directory");
    for file in [
        "orders.sqlite3",
        "orders.sqlite3-wal",
        "orders.sqlite3-shm",
        "dev-jwt-secret",
    ] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    assert!(
        !service.log().contains("others may read"),
        "{}",
        service.log()
    );
    drop(service);
}

#[tokio::test]
async fn an_existing_store_others_may_read_is_warned_about_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let workdir = Workdir::new("shared-store");
    let dir = &workdir.0;
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::set_permissions(dir.join("data"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = workdir.options();
    let service = Service::start(&options);
    service.wait_for_log("others may read").unwrap();
    assert_eq!(
        mode(&dir.join("data")),
        0o755,
        "an existing directory is left as it is"
    );
    drop(service);
}

#[test]
fn a_build_without_test_hooks_refuses_the_pause_directory_and_dropping_on_hang_up() {
    let workdir = Workdir::new("no-hooks");
    let dir = &workdir.0;
    let pause = dir.join("pause");
    for (name, value) in [
        ("IDEMPOTENCY_TEST_PAUSE_DIR", pause.to_str().unwrap()),
        ("IDEMPOTENCY_TEST_DROP_ON_HANG_UP", "1"),
    ] {
        let (status, _, stderr) = run_binary_in(
            &server_without_test_hooks_binary(),
            dir,
            &["serve"],
            &[(name, value), ("BIND_ADDR", "127.0.0.1:0")],
        );
        assert!(!status.success(), "it started with {name}: {stderr}");
        assert!(stderr.contains(name), "{stderr}");
        assert!(
            !dir.join("data").exists(),
            "it refused before opening any store"
        );
    }
}
