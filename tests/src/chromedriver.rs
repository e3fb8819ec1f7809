//! A private chromedriver per test (`CHROMEDRIVER_BIN`, else Debian's
//! `/usr/bin/chromedriver`), on a reserved port, killed when dropped: the on-call page's
//! tests drive headless Chromium (`CHROMIUM_BIN`, else `/usr/bin/chromium`) through it.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::TempDir;
use crate::ports::{ReservedPort, reserve_port};
use crate::process::until_up;

#[derive(Debug)]
pub struct Chromedriver {
    child: Child,
    port: ReservedPort,
    dir: TempDir,
}

fn binary(variable: &str, default: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// The browser chromedriver starts.
#[must_use]
pub fn chromium_binary() -> PathBuf {
    binary("CHROMIUM_BIN", "/usr/bin/chromium")
}

impl Chromedriver {
    /// # Panics
    /// When it does not start, or does not answer `/status` ready within 30 s.
    #[must_use]
    pub fn start() -> Self {
        let dir = TempDir::new("it-chromedriver");
        let port = reserve_port();
        let bin = binary("CHROMEDRIVER_BIN", "/usr/bin/chromedriver");
        let mut child = Command::new(&bin)
            .arg(format!("--port={}", port.get()))
            .arg(format!(
                "--log-path={}",
                dir.path().join("chromedriver.log").display()
            ))
            // A group of its own: Chromium's processes go with it, even after a panic.
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} cannot start: {e}", bin.display()));
        let status = format!("http://127.0.0.1:{}/status", port.get());
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        let up = until_up(&mut child, Duration::from_secs(30), || {
            let body = agent
                .get(&status)
                .call()
                .ok()?
                .body_mut()
                .read_to_string()
                .ok()?;
            body.contains("\"ready\":true").then_some(())
        });
        let driver = Self { child, port, dir };
        assert!(up.is_some(), "chromedriver not ready: {}", driver.log());
        driver
    }

    /// The WebDriver endpoint.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port.get())
    }

    /// Its log, for a failure's message.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("chromedriver.log")).unwrap_or_default()
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and the Chromium processes it started.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
