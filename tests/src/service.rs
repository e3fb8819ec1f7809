//! A real server process (the `server` binary) on a test's database.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::binaries::server_binary;
use crate::process::{EXIT_BOUND, exit_within, send_sigterm, until_up};

/// The HS256 secret every test server signs with.
pub const TEST_SECRET: &str = "black-box-test-secret-0123456789abcdef";

/// How a server process is started.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// `DATABASE_URL`; empty leaves it unset (the embedded store under `./data/`).
    pub database_url: String,
    /// `AUTH_JWT_SECRET`; `None` leaves it unset.
    pub auth_secret: Option<String>,
    /// The working directory; `None` inherits the test's.
    pub current_dir: Option<PathBuf>,
    /// `LOCK_WAIT_TIMEOUT_SECS`.
    pub lock_wait_secs: u32,
    /// `IDEMPOTENCY_TEST_PAUSE_DIR`, for tests that hold a request in its transaction.
    pub pause_dir: Option<PathBuf>,
    /// Further environment.
    pub env: Vec<(String, String)>,
    /// Sends the server's log to this file instead of into the test's memory (for the
    /// benchmark: reading every line would load the measuring process).
    pub log_file: Option<PathBuf>,
    /// Another build of the server than [`server_binary`] (the benchmark's build without
    /// tracing).
    pub binary: Option<PathBuf>,
}

impl ServiceOptions {
    /// Defaults for `database_url`: 5 s lock wait, no pause points.
    #[must_use]
    pub fn new(database_url: &str) -> Self {
        Self {
            database_url: database_url.to_owned(),
            auth_secret: Some(TEST_SECRET.to_owned()),
            current_dir: None,
            lock_wait_secs: 5,
            pause_dir: None,
            env: Vec::new(),
            log_file: None,
            binary: None,
        }
    }
}

/// A running `server serve`; killed on drop.
#[derive(Debug)]
pub struct Service {
    child: Child,
    base_url: String,
    log: Arc<Log>,
}

/// What the process wrote to stderr, with a signal for every new line.
#[derive(Debug, Default)]
struct Log {
    text: Mutex<String>,
    grew: Condvar,
}

/// Runs `server <args>` to completion with `env`, returning its status and stderr.
#[must_use]
pub fn run_command(args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String, String) {
    run_command_in(&std::env::temp_dir(), args, env)
}

/// [`run_command`] in the working directory `dir`.
#[must_use]
pub fn run_command_in(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (ExitStatus, String, String) {
    run_binary_in(&server_binary(), dir, args, env)
}

/// Runs `binary <args>` in `dir` with only `env` (and a warn-level log), to completion.
#[must_use]
pub fn run_binary_in(
    binary: &Path,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (ExitStatus, String, String) {
    let output = Command::new(binary)
        .current_dir(dir)
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

impl Service {
    /// Starts `server serve` on a free port and waits until it listens.
    ///
    /// # Panics
    /// When the process exits or does not listen within 60 s; the message holds its log.
    #[must_use]
    pub fn start(options: &ServiceOptions) -> Self {
        let mut command = Self::command(options, &["serve"]);
        if let Some(path) = &options.log_file {
            command.stderr(std::fs::File::create(path).unwrap());
            let mut child = command.spawn().unwrap();
            let address = wait_for_address_in(path, &mut child);
            return Self {
                child,
                base_url: format!("http://{address}"),
                log: Arc::new(Log::default()),
            };
        }
        let (mut child, log, addresses) = Self::spawn_logging(command);
        let Ok(address) = addresses.recv_timeout(Duration::from_secs(60)) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not start:\n{}", log.text.lock().unwrap());
        };
        Self {
            child,
            base_url: format!("http://{address}"),
            log,
        }
    }

    /// Starts `server <args>` (a command without HTTP, such as `relay` or `consume
    /// shipments`) with the same environment as [`Service::start`], and waits until it
    /// logs `ready`. Its [`Service::base_url`] is empty.
    ///
    /// # Panics
    /// When it does not log `ready` within 60 s; the message holds its log.
    #[must_use]
    pub fn start_command(options: &ServiceOptions, args: &[&str], ready: &str) -> Self {
        let (child, log, _addresses) = Self::spawn_logging(Self::command(options, args));
        let service = Self {
            child,
            base_url: String::new(),
            log,
        };
        if let Err(log) = service.wait_for_log(ready) {
            panic!("server {args:?} did not start:\n{log}");
        }
        service
    }

    /// The server process for `args`, with the options' environment.
    fn command(options: &ServiceOptions, args: &[&str]) -> Command {
        let mut command = Command::new(options.binary.clone().unwrap_or_else(server_binary));
        command
            .args(args)
            .env_clear()
            .env("BIND_ADDR", "127.0.0.1:0")
            .env("LOCK_WAIT_TIMEOUT_SECS", options.lock_wait_secs.to_string())
            .env("DATABASE_MAX_CONNECTIONS", "80")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if !options.database_url.is_empty() {
            command.env("DATABASE_URL", &options.database_url);
        }
        if let Some(secret) = &options.auth_secret {
            command.env("AUTH_JWT_SECRET", secret);
        }
        if let Some(dir) = &options.current_dir {
            command.current_dir(dir);
        }
        if let Some(dir) = &options.pause_dir {
            command.env("IDEMPOTENCY_TEST_PAUSE_DIR", dir);
        }
        for (name, value) in &options.env {
            command.env(name, value);
        }
        command
    }

    /// Spawns `command`, collecting its stderr lines into a log and sending every
    /// listening address it announces.
    fn spawn_logging(mut command: Command) -> (Child, Arc<Log>, mpsc::Receiver<String>) {
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Log::default());
        let (address_tx, address_rx) = mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(address) = listening_address(&line) {
                    let _ = address_tx.send(address);
                }
                let mut text = sink.text.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
                sink.grew.notify_all();
            }
        });
        (child, log, address_rx)
    }

    /// `http://127.0.0.1:<port>`.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The most resident memory the process has used so far (`VmHWM`), in bytes.
    #[must_use]
    pub fn peak_rss_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// The process id (for [`process_cpu_time`]).
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the process logged so far (empty when its log goes to
    /// [`ServiceOptions::log_file`]).
    #[must_use]
    pub fn log(&self) -> String {
        self.log.text.lock().unwrap().clone()
    }

    /// Waits until the process logs a line containing `needle`.
    ///
    /// # Errors
    /// The log so far, when no such line came within 60 s.
    pub fn wait_for_log(&self, needle: &str) -> Result<(), String> {
        let text = self.log.text.lock().unwrap();
        let (text, timeout) = self
            .log
            .grew
            .wait_timeout_while(text, Duration::from_secs(60), |t| !t.contains(needle))
            .unwrap();
        if timeout.timed_out() {
            return Err(text.clone());
        }
        Ok(())
    }

    /// Sends SIGTERM: the graceful shutdown signal.
    pub fn terminate(&self) {
        send_sigterm(self.child.id());
    }

    /// Sends SIGKILL: the process dies at once, mid-transaction or not.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Waits for the process to exit (after [`Service::terminate`]).
    ///
    /// # Panics
    /// When it is still running after [`EXIT_BOUND`].
    pub fn wait(&mut self) -> ExitStatus {
        exit_within(&mut self.child, EXIT_BOUND)
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in the server's "listening" log line.
/// The address in the "listening" line, as text (`address=...`) or JSON
/// (`"address":"..."`) logs write it.
fn listening_address(line: &str) -> Option<String> {
    if !line.contains("listening") {
        return None;
    }
    if let Some(json) = line.split(r#""address":""#).nth(1) {
        return Some(json.split('"').next()?.to_owned());
    }
    Some(line.split("address=").nth(1)?.trim().to_owned())
}

/// Waits for the "listening" line in a log file.
fn wait_for_address_in(path: &Path, child: &mut Child) -> String {
    let address = until_up(child, Duration::from_secs(60), || {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .find_map(listening_address)
    });
    address.unwrap_or_else(|| {
        let _ = child.kill();
        panic!(
            "the server did not start:\n{}",
            std::fs::read_to_string(path).unwrap_or_default()
        )
    })
}
