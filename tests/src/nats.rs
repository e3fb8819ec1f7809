//! A private `nats-server` with JetStream per test: started on free ports with a store
//! directory of its own, stopped, killed and restarted on the same ports and store (a
//! broker outage, after which the stored messages are still there).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::TempDir;
use crate::binaries::installed_binary;
use crate::ports::{ReservedPort, reserve_port};
use crate::process::{EXIT_BOUND, exit_within, send_sigterm, until_up};

/// How long the server may take to become healthy.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `nats-server -js`; killed, and its store removed, on drop.
#[derive(Debug)]
pub struct PrivateNats {
    child: Option<Child>,
    binary: PathBuf,
    port: ReservedPort,
    monitor_port: ReservedPort,
    monitor: ureq::Agent,
    // Last: removed after the process is gone.
    dir: TempDir,
}

impl PrivateNats {
    /// Starts a server on free local ports and waits until JetStream is ready.
    ///
    /// # Panics
    /// When there is no `nats-server`, or it does not become healthy within 30 s (the
    /// message holds its log).
    #[must_use]
    pub fn start() -> Self {
        let monitor = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        let mut nats = Self {
            child: None,
            binary: nats_server_binary(),
            port: reserve_port(),
            monitor_port: reserve_port(),
            monitor,
            dir: TempDir::new("it-nats"),
        };
        nats.spawn();
        nats
    }

    /// `nats://127.0.0.1:<port>`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port.get())
    }

    /// Sends SIGTERM and waits for the process to exit (a clean shutdown: JetStream
    /// flushes its store).
    ///
    /// # Panics
    /// When the server is not running.
    pub fn stop(&mut self) {
        let mut child = self.child.take().expect("the NATS server is not running");
        send_sigterm(child.id());
        exit_within(&mut child, EXIT_BOUND);
    }

    /// Sends SIGKILL: the server dies at once, as in a crash.
    ///
    /// # Panics
    /// When the server is not running.
    pub fn kill(&mut self) {
        let mut child = self.child.take().expect("the NATS server is not running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Starts the server again on the same ports and store (stopping it first if it
    /// runs), and waits until JetStream is ready; clients reconnect by themselves.
    ///
    /// # Panics
    /// As [`PrivateNats::start`].
    pub fn restart(&mut self) {
        if self.child.is_some() {
            self.stop();
        }
        self.spawn();
    }

    /// How many messages stream `name` holds now, from the server's monitoring endpoint.
    ///
    /// # Panics
    /// When the server does not answer or has no such stream.
    #[must_use]
    pub fn stream_messages(&self, name: &str) -> u64 {
        let url = format!(
            "http://127.0.0.1:{}/jsz?accounts=true&streams=true",
            self.monitor_port.get()
        );
        let body = self
            .monitor
            .get(&url)
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        let jsz: serde_json::Value = serde_json::from_str(&body).unwrap();
        jsz["account_details"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|account| account["stream_detail"].as_array())
            .flatten()
            .find(|stream| stream["name"] == name)
            .and_then(|stream| stream["state"]["messages"].as_u64())
            .unwrap_or_else(|| panic!("the NATS server has no stream {name}: {body}"))
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    /// Starts the process (its log appended to `server.log`) and waits for `/healthz`.
    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .unwrap();
        let child = Command::new(&self.binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &self.port.get().to_string()])
            .arg("-sd")
            .arg(self.dir.path().join("store"))
            .args(["-m", &self.monitor_port.get().to_string()])
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
        self.wait_until_healthy();
    }

    /// Polls `/healthz`, which answers 200 only once JetStream is up; panics with the
    /// log when the process exits or the time is up.
    fn wait_until_healthy(&mut self) {
        let url = format!("http://127.0.0.1:{}/healthz", self.monitor_port.get());
        let monitor = &self.monitor;
        let child = self
            .child
            .as_mut()
            .expect("the NATS server was just started");
        let healthy = until_up(child, START_TIMEOUT, || monitor.get(&url).call().ok());
        if healthy.is_none() {
            let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
            panic!(
                "the private NATS server ({}) did not become healthy on port {}:\n{log}",
                self.binary.display(),
                self.port.get()
            );
        }
    }
}

impl Drop for PrivateNats {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
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
