//! A private `nats-server` with JetStream per test: started on free ports with a store
//! directory of its own, stopped, killed and restarted on the same ports and store (a
//! broker outage, after which the stored messages are still there).

use crate::TempDir;
use crate::nats_process::{NatsProcess, stream_detail};
use crate::ports::{ReservedPort, reserve_port};

/// What the service's processes are pointed at: a single server or a cluster.
pub trait Broker {
    /// The variables a process needs to use it (`NATS_URL`, and what the stream needs).
    fn env(&self) -> Vec<(String, String)>;

    /// How many messages stream `name` holds now.
    fn stream_messages(&self, name: &str) -> u64;
}

/// A running `nats-server -js`; killed, and its store removed, on drop.
#[derive(Debug)]
pub struct PrivateNats {
    // First: killed before its directory goes.
    process: NatsProcess,
    port: ReservedPort,
    _monitor_port: ReservedPort,
    _dir: TempDir,
}

impl PrivateNats {
    /// Starts a server on free local ports and waits until JetStream is ready.
    ///
    /// # Panics
    /// When there is no `nats-server`, or it does not become healthy within 30 s (the
    /// message holds its log).
    #[must_use]
    pub fn start() -> Self {
        let dir = TempDir::new("it-nats");
        let port = reserve_port();
        let monitor_port = reserve_port();
        let args = [
            "-js",
            "-a",
            "127.0.0.1",
            "-p",
            &port.get().to_string(),
            "-m",
            &monitor_port.get().to_string(),
            "-sd",
        ]
        .map(Into::into)
        .into_iter()
        .chain([dir.path().join("store").into_os_string()])
        .collect();
        let process = NatsProcess::new(args, dir.path().join("server.log"), monitor_port.get());
        let mut nats = Self {
            process,
            port,
            _monitor_port: monitor_port,
            _dir: dir,
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
        self.process.stop();
    }

    /// Sends SIGKILL: the server dies at once, as in a crash.
    ///
    /// # Panics
    /// When the server is not running.
    pub fn kill(&mut self) {
        self.process.kill();
    }

    /// Starts the server again on the same ports and store (stopping it first if it
    /// runs), and waits until JetStream is ready; clients reconnect by themselves.
    ///
    /// # Panics
    /// As [`PrivateNats::start`].
    pub fn restart(&mut self) {
        if self.process.is_running() {
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
        let jsz = self
            .process
            .monitoring("/jsz?accounts=true&streams=true")
            .expect("the NATS server's monitoring endpoint does not answer");
        stream_detail(&jsz, name)
            .and_then(|stream| stream["state"]["messages"].as_u64())
            .unwrap_or_else(|| panic!("the NATS server has no stream {name}: {jsz}"))
    }

    fn spawn(&mut self) {
        self.process.spawn();
        self.process.wait_until_healthy();
    }
}

impl Broker for PrivateNats {
    fn env(&self) -> Vec<(String, String)> {
        vec![("NATS_URL".to_owned(), self.url())]
    }

    fn stream_messages(&self, name: &str) -> u64 {
        Self::stream_messages(self, name)
    }
}
