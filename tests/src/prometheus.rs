//! A private Prometheus per test: scraping the given server processes every second and
//! evaluating the project's alert rules (`deploy/prometheus/alerts.yml`) every second, on
//! a port of its own, with its storage in a temporary directory; asked through its HTTP
//! API.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::TempDir;
use crate::binaries::installed_binary;
use crate::ports::{ReservedPort, reserve_port};
use crate::process::until_up;

/// How long Prometheus may take to become ready.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The alert rules a deployment uses.
pub const ALERT_RULES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../deploy/prometheus/alerts.yml"
);

/// A running `prometheus`; killed, and its storage removed, on drop.
#[derive(Debug)]
pub struct PrivatePrometheus {
    child: Child,
    port: ReservedPort,
    agent: ureq::Agent,
    // Last: removed after the process is gone.
    dir: TempDir,
}

impl PrivatePrometheus {
    /// Starts Prometheus scraping `/metrics` of each of `base_urls` (`http://host:port`)
    /// and evaluating [`ALERT_RULES`], and waits until it is ready.
    ///
    /// # Panics
    /// When there is no `prometheus`, or it is not ready within 60 s (the message holds
    /// its log).
    #[must_use]
    pub fn start(base_urls: &[&str]) -> Self {
        let binary = installed_binary("PROMETHEUS_BIN", "prometheus", "/usr/bin/prometheus")
            .expect(
                "the alert test needs prometheus and none was found: run it through \
                 scripts/test (it installs Debian's prometheus where it can), install it \
                 (Debian: apt-get install prometheus), or set PROMETHEUS_BIN to its path",
            );
        let dir = TempDir::new("it-prometheus");
        let port = reserve_port();
        let targets: Vec<String> = base_urls
            .iter()
            .map(|url| format!("'{}'", url.trim_start_matches("http://")))
            .collect();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             rule_files:\n  - '{ALERT_RULES}'\n\
             scrape_configs:\n  - job_name: orders\n    static_configs:\n      - targets: [{}]\n",
            targets.join(", ")
        );
        let config_path = dir.path().join("prometheus.yml");
        std::fs::write(&config_path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
        let child = Command::new(&binary)
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{}", port.get()))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(5)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut prometheus = Self {
            child,
            port,
            agent,
            dir,
        };
        prometheus.wait_until_ready(&binary);
        prometheus
    }

    /// `GET /api/v1/<path>?<query>`'s `data`.
    ///
    /// # Panics
    /// When Prometheus does not answer, or answers with an error.
    #[must_use]
    pub fn api(&self, path: &str, query: &[(&str, &str)]) -> serde_json::Value {
        let url = format!("http://127.0.0.1:{}/api/v1/{path}", self.port.get());
        let body = self
            .agent
            .get(&url)
            .query_pairs(query.iter().copied())
            .call()
            .unwrap_or_else(|e| panic!("GET {url}: {e}"))
            .body_mut()
            .read_to_string()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["status"], "success", "GET {url} {query:?}: {body}");
        answer["data"].clone()
    }

    /// The series an instant query of `promql` returns now.
    #[must_use]
    pub fn query(&self, promql: &str) -> Vec<serde_json::Value> {
        self.api("query", &[("query", promql)])["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Prometheus's log so far.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("prometheus.log")).unwrap_or_default()
    }

    fn wait_until_ready(&mut self, binary: &Path) {
        let url = format!("http://127.0.0.1:{}/-/ready", self.port.get());
        let agent = &self.agent;
        let ready = until_up(&mut self.child, START_TIMEOUT, || {
            agent
                .get(&url)
                .call()
                .ok()
                .filter(|r| r.status().as_u16() == 200)
        });
        assert!(
            ready.is_some(),
            "{} did not become ready on port {}:\n{}",
            binary.display(),
            self.port.get(),
            self.log()
        );
    }
}

impl Drop for PrivatePrometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
