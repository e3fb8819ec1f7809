//! An identity provider for the JWKS tests, independent of the service's JWT code: a
//! Python process (`tests/jwks/jwks_tool.py`, jwcrypto on pyca/cryptography, in the venv
//! `scripts/test` makes) that holds the keys, mints the tokens, and serves the key set
//! on a port of its own, counting fetches.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::TempDir;
use crate::ports::{ReservedPort, reserve_port};
use crate::process::until_up;

const TOOL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/jwks/jwks_tool.py");

/// The issuer and audience every test token carries unless a test says otherwise.
pub const ISSUER: &str = "https://idp.test/realms/orders";
pub const AUDIENCE: &str = "orders-api";

/// The signing keys published at start, by kid (`jwks_tool.py` names them).
pub const PUBLISHED: [&str; 6] = ["rs256", "ps256", "es256", "eddsa", "weak", "enc"];

/// Claims of a valid token: tenant, actor, permissions; ten minutes to run.
#[must_use]
pub fn valid_claims(tenant: u64, actor: u64, scope: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": actor.to_string(), "tid": tenant,
        "scope": scope, "iat": now, "exp": now + 600,
    })
}

/// The venv's python, beside the `st` that `SCHEMATHESIS` names.
fn python() -> PathBuf {
    let st = std::env::var_os("SCHEMATHESIS").unwrap_or_else(|| {
        panic!(
            "SCHEMATHESIS is not set: run the tests with scripts/test, which makes the venv \
             (schemathesis and jwcrypto) and sets it"
        )
    });
    PathBuf::from(st).with_file_name("python")
}

/// A running key server; killed, and its keys removed, on drop.
#[derive(Debug)]
pub struct IdentityProvider {
    child: Child,
    port: ReservedPort,
    agent: ureq::Agent,
    dir: TempDir,
}

impl IdentityProvider {
    /// Makes the keys, publishes [`PUBLISHED`], and starts serving them.
    ///
    /// # Panics
    /// When the tool fails or the server is not up within 30 s.
    #[must_use]
    pub fn start() -> Self {
        let dir = TempDir::new("it-idp");
        let port = reserve_port();
        run_tool(dir.path(), &["keys"]);
        let mut publish = vec!["publish"];
        publish.extend_from_slice(&PUBLISHED);
        run_tool(dir.path(), &publish);
        let child = Command::new(python())
            .arg(TOOL)
            .arg("serve")
            .arg(dir.path())
            .arg(port.get().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut provider = Self {
            child,
            port,
            agent: ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(5)))
                .http_status_as_error(false)
                .build()
                .into(),
            dir,
        };
        let fetches = provider.fetches_url();
        let agent = provider.agent.clone();
        let up = until_up(&mut provider.child, Duration::from_secs(30), || {
            agent.get(&fetches).call().ok()
        });
        assert!(up.is_some(), "the key server did not come up");
        provider
    }

    fn fetches_url(&self) -> String {
        format!("http://127.0.0.1:{}/fetches", self.port.get())
    }

    fn tool(&self, args: &[&str]) -> String {
        run_tool(self.dir.path(), args)
    }

    /// `AUTH_JWKS_URL` for the service.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/jwks.json", self.port.get())
    }

    /// The environment a service verifying with this provider's keys needs.
    #[must_use]
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AUTH_JWKS_URL", self.url()),
            ("AUTH_ISSUER", ISSUER.to_owned()),
            ("AUTH_AUDIENCE", AUDIENCE.to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// Replaces the published set with these keys' public halves.
    pub fn publish(&self, kids: &[&str]) {
        let mut args = vec!["publish"];
        args.extend_from_slice(kids);
        self.tool(&args);
    }

    /// While down, the set is answered `503`.
    pub fn set_down(&self, down: bool) {
        let marker = self.dir.path().join("down");
        if down {
            std::fs::write(marker, b"").unwrap();
        } else {
            let _ = std::fs::remove_file(marker);
        }
    }

    /// How many times the set was asked for.
    #[must_use]
    pub fn fetches(&self) -> u64 {
        let body = self
            .agent
            .get(&self.fetches_url())
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        serde_json::from_str::<Value>(&body).unwrap()["fetches"]
            .as_u64()
            .unwrap()
    }

    /// A token with `claims` signed by `kid` (`"random"`: rs256 under a random kid;
    /// `"hs256:<secret>"`; `"none"`: unsigned).
    #[must_use]
    pub fn mint(&self, kid: &str, claims: &Value) -> String {
        self.mint_many(kid, claims, 1).remove(0)
    }

    #[must_use]
    pub fn mint_many(&self, kid: &str, claims: &Value, count: usize) -> Vec<String> {
        self.tool(&["mint", kid, &claims.to_string(), &count.to_string()])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `kid`'s public key as PEM, as a verifier confusing algorithms would take it for an
    /// HMAC secret.
    #[must_use]
    pub fn public_pem(&self, kid: &str) -> String {
        self.tool(&["public-pem", kid])
    }

    /// A token whose claims are `claims` byte for byte, as no `Value` can hold them (a
    /// member twice).
    #[must_use]
    pub fn mint_text(&self, kid: &str, claims: &str) -> String {
        self.tool(&["mint", kid, claims, "1"]).trim_end().to_owned()
    }
}

/// `jwks_tool.py <command> <dir> <args...>`: its stdout.
fn run_tool(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(python())
        .arg(TOOL)
        .arg(args[0])
        .arg(dir)
        .args(&args[1..])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "jwks_tool {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

impl Drop for IdentityProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
