//! The payment provider stand-in (`provider-stand-in`,
//! `docs/long-running-operations.md#the-payment-provider`) as a child process of a test,
//! with its controls and counters.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::binaries::provider_stand_in_binary;

/// The faults of the stand-in (`PUT /control`): all off by default, so
/// `Controls::default()` resets. Counts are "the next N charge calls".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Controls {
    /// Wait this long before handling each charge.
    pub delay_ms: u64,
    /// `503` before charging, for the next N charge calls.
    pub fail5xx: u32,
    /// `503` to every charge and lookup.
    pub fail_always: bool,
    /// Charge, then close the connection without an answer, for the next N charge calls.
    pub drop_after_charge: u32,
    /// New charges are declined.
    pub decline: bool,
    /// Charge, then hold the answer until [`ProviderStandIn::release`].
    pub hold: bool,
    /// Every answer names this id instead of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_id: Option<String>,
    /// Every answer names this amount instead of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_amount: Option<u64>,
    /// Every answer names this currency instead of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_currency: Option<String>,
}

/// What the stand-in has seen (`GET /counters`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// `POST /v1/charges` calls, valid or not.
    pub charge_calls: u64,
    /// `GET /v1/charges` calls.
    pub lookup_calls: u64,
    /// Distinct charges made (keys charged).
    pub charges: u64,
    /// `POST /v1/refunds` calls, valid or not.
    #[serde(default)]
    pub refund_calls: u64,
    /// Distinct refunds made (keys refunded), declined ones included.
    #[serde(default)]
    pub refunds: u64,
    /// Charge calls being handled now.
    pub in_flight: u64,
    /// Charge calls whose answer is held now.
    pub held: u64,
    /// The `traceparent` header of each charge call that had one, oldest first (the last
    /// 1000): whether the provider saw the trace of the request that accepted the capture.
    #[serde(default)]
    pub traceparents: Vec<String>,
}

/// A running stand-in on a free port; killed on drop.
#[derive(Debug)]
pub struct ProviderStandIn {
    child: Child,
    url: String,
    agent: ureq::Agent,
    log: Arc<Mutex<String>>,
}

impl ProviderStandIn {
    /// Starts a stand-in that keeps its charges in memory.
    ///
    /// # Panics
    /// When it does not announce its address within 30 s.
    #[must_use]
    pub fn start() -> Self {
        Self::start_with_args(&[])
    }

    /// Starts a stand-in that also keeps its charges in `path`, so one started later on
    /// the same file knows them.
    ///
    /// # Panics
    /// As [`ProviderStandIn::start`].
    #[must_use]
    pub fn start_with_state_file(path: &Path) -> Self {
        Self::start_with_args(&["--state-file".as_ref(), path.as_os_str()])
    }

    fn start_with_args(args: &[&std::ffi::OsStr]) -> Self {
        let mut child = Command::new(provider_stand_in_binary())
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Nothing more is printed; drain anyway so the pipe never fills.
            let _ = reader.read_to_end(&mut Vec::new());
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let Some(url) = line.trim_end().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the provider stand-in did not start (stdout: {line:?}):\n{}",
                log.lock().unwrap()
            );
        };
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Self {
            child,
            url: url.to_owned(),
            agent,
            log,
        }
    }

    /// `http://127.0.0.1:<port>`: the provider's base URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Replaces the controls (`PUT /control`).
    ///
    /// # Panics
    /// When the stand-in does not accept them.
    pub fn control(&self, controls: &Controls) {
        let body = serde_json::to_vec(controls).unwrap();
        let status = self.send("PUT", "/control", &body).0;
        assert_eq!(status, 200, "PUT /control refused");
    }

    /// Releases the held answers (`POST /control/release`); how many were held.
    #[must_use]
    pub fn release(&self) -> u64 {
        let (status, body) = self.send("POST", "/control/release", b"");
        assert_eq!(status, 200, "POST /control/release refused");
        let released: serde_json::Value = serde_json::from_slice(&body).unwrap();
        released["released"].as_u64().unwrap()
    }

    /// The counters now (`GET /counters`).
    #[must_use]
    pub fn counters(&self) -> Counters {
        let (status, body) = self.send("GET", "/counters", b"");
        assert_eq!(status, 200, "GET /counters refused");
        serde_json::from_slice(&body).unwrap()
    }

    /// The `traceparent` headers of the charge calls so far, oldest first.
    #[must_use]
    pub fn traceparents(&self) -> Vec<String> {
        self.counters().traceparents
    }

    /// Polls the counters until `done` holds, for at most `timeout`.
    ///
    /// # Panics
    /// When it does not within `timeout`; the message holds the last counters.
    pub fn wait_for(&self, timeout: Duration, done: impl Fn(&Counters) -> bool) -> Counters {
        let deadline = Instant::now() + timeout;
        loop {
            let counters = self.counters();
            if done(&counters) {
                return counters;
            }
            assert!(
                Instant::now() < deadline,
                "stand-in counters never got there: {counters:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Everything it logged so far.
    #[must_use]
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn send(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body.to_vec())
            .unwrap();
        let mut response = self
            .agent
            .run(request)
            .unwrap_or_else(|e| panic!("{method} {path}: no answer from the stand-in: {e}"));
        let status = response.status().as_u16();
        (status, response.body_mut().read_to_vec().unwrap())
    }
}

impl Drop for ProviderStandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
