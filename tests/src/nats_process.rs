//! One `nats-server` process, the piece the single private server and the cluster share:
//! started with fixed arguments, its log appended to a file, ready once `/healthz` answers,
//! stopped, killed and started again on the same arguments.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::binaries::installed_binary;
use crate::process::{EXIT_BOUND, exit_within, send_sigterm, until_up};

/// How long a server may take to become healthy.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A `nats-server` with its arguments; killed on drop.
#[derive(Debug)]
pub(crate) struct NatsProcess {
    child: Option<Child>,
    binary: PathBuf,
    args: Vec<OsString>,
    log: PathBuf,
    monitor_port: u16,
    monitor: ureq::Agent,
}

impl NatsProcess {
    /// A process not yet started: `args` must make it serve monitoring on `monitor_port`.
    pub(crate) fn new(args: Vec<OsString>, log: PathBuf, monitor_port: u16) -> Self {
        Self {
            child: None,
            binary: nats_server_binary(),
            args,
            log,
            monitor_port,
            monitor: ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(2)))
                .build()
                .into(),
        }
    }

    /// Starts it without waiting (a cluster's nodes become healthy only together).
    ///
    /// # Panics
    /// When it runs already, or the binary cannot be run.
    pub(crate) fn spawn(&mut self) {
        assert!(self.child.is_none(), "the NATS server runs already");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new(&self.binary)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run {}: {e} (install nats-server, e.g. apt-get install nats-server, \
                     or set NATS_SERVER_BIN to one)",
                    self.binary.display()
                )
            });
        self.child = Some(child);
    }

    /// Polls `/healthz`, which answers 200 only once JetStream is up; panics with the log
    /// when the process exits or 30 s have passed.
    pub(crate) fn wait_until_healthy(&mut self) {
        self.wait_for("healthy", "/healthz", |_| true);
    }

    /// Polls the monitoring endpoint `path_and_query` until its document satisfies
    /// `accept`; panics with the log, naming `what`, when the process exits or 30 s pass.
    pub(crate) fn wait_for(
        &mut self,
        what: &str,
        path_and_query: &str,
        accept: impl Fn(&serde_json::Value) -> bool,
    ) {
        let url = format!("http://127.0.0.1:{}{path_and_query}", self.monitor_port);
        let monitor = &self.monitor;
        let child = self.child.as_mut().expect("the NATS server is not running");
        let seen = until_up(child, START_TIMEOUT, || {
            document(monitor, &url).filter(|document| accept(document))
        });
        if seen.is_none() {
            panic!(
                "the private NATS server ({}, monitoring port {}) was not {what} within \
                 {START_TIMEOUT:?}:\n{}",
                self.binary.display(),
                self.monitor_port,
                self.log()
            );
        }
    }

    /// Whether it was started and not stopped or killed since.
    pub(crate) fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// Sends SIGTERM and waits for the exit (a clean shutdown: JetStream flushes its store).
    ///
    /// # Panics
    /// When it is not running.
    pub(crate) fn stop(&mut self) {
        let mut child = self.child.take().expect("the NATS server is not running");
        send_sigterm(child.id());
        exit_within(&mut child, EXIT_BOUND);
    }

    /// Sends SIGKILL: it dies at once, as in a crash.
    ///
    /// # Panics
    /// When it is not running.
    pub(crate) fn kill(&mut self) {
        let mut child = self.child.take().expect("the NATS server is not running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// A monitoring endpoint's document (`/jsz?...`, `/varz`); `None` when it does not answer.
    pub(crate) fn monitoring(&self, path_and_query: &str) -> Option<serde_json::Value> {
        let url = format!("http://127.0.0.1:{}{path_and_query}", self.monitor_port);
        document(&self.monitor, &url)
    }

    /// Everything it has logged so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for NatsProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The JSON document at `url`; `None` unless it answers 200 with one.
fn document(monitor: &ureq::Agent, url: &str) -> Option<serde_json::Value> {
    let body = monitor
        .get(url)
        .call()
        .ok()?
        .body_mut()
        .read_to_string()
        .ok()?;
    serde_json::from_str(&body).ok()
}

/// Stream `name`'s detail in a `/jsz?accounts=true&streams=true` document.
pub(crate) fn stream_detail<'a>(
    jsz: &'a serde_json::Value,
    name: &str,
) -> Option<&'a serde_json::Value> {
    jsz["account_details"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|account| account["stream_detail"].as_array())
        .flatten()
        .find(|stream| stream["name"] == name)
}

/// `NATS_SERVER_BIN`, else `nats-server` on the `PATH`, else Debian's
/// `/usr/sbin/nats-server`.
///
/// # Panics
/// When none exists: the NATS tests need a real server and are never skipped.
fn nats_server_binary() -> PathBuf {
    installed_binary("NATS_SERVER_BIN", "nats-server", "/usr/sbin/nats-server").expect(
        "the NATS tests need nats-server (JetStream, 2.9 or later) and none was found: \
         run them through scripts/test (it installs Debian's nats-server where it can), \
         install it (Debian: apt-get install nats-server), or set NATS_SERVER_BIN to its path",
    )
}
