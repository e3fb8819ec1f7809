//! A plain HTTP client for the black-box tests: every header and byte under the test's
//! control, no retries, no redirects, statuses as data.

use std::time::Duration;

use adapters::http::{Claims, TokenKeys};
use ureq::http::{HeaderMap, HeaderValue, Request};

use crate::history::{History, exchange_of};
use crate::service::TEST_SECRET;

/// Every permission the service knows.
pub const ALL_PERMISSIONS: &str = "orders:create orders:read orders:cancel payments:create \
     payments:refund payments:read admin:read admin:write admin:all-tenants";

/// One response, fully read.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Reply {
    /// The header's values, joined by `, ` when there are several.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<String> {
        let values: Vec<String> = self
            .headers
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The body as JSON.
    ///
    /// # Panics
    /// When the body is not JSON.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {} body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The problem's `code`, if the body is a problem.
    #[must_use]
    pub fn code(&self) -> Option<String> {
        serde_json::from_slice::<serde_json::Value>(&self.body)
            .ok()?
            .get("code")?
            .as_str()
            .map(str::to_owned)
    }

    /// `(status, code)`, for compact assertions.
    #[must_use]
    pub fn status_code(&self) -> (u16, Option<String>) {
        (self.status, self.code())
    }
}

/// A token for `tenant` and `actor` with `scope`, valid for an hour.
#[must_use]
pub fn token(tenant: u64, actor: u64, scope: &str) -> String {
    token_expiring(tenant, actor, scope, 3600)
}

/// A token whose `exp` is `seconds_from_now` away (negative: already expired).
#[must_use]
pub fn token_expiring(tenant: u64, actor: u64, scope: &str, seconds_from_now: i64) -> String {
    mint(TEST_SECRET, tenant, actor, scope, seconds_from_now)
}

/// A token with the claims of a valid one whose signature another secret made: a forgery
/// that is certain, unlike one that edits a character of the signature (the edit may land
/// on the same character, or only on base64 padding bits).
#[must_use]
pub fn forged_token(tenant: u64, actor: u64, scope: &str) -> String {
    let forged = mint(
        "not-the-server-secret-but-as-long-as-one",
        tenant,
        actor,
        scope,
        3600,
    );
    assert_ne!(forged, token(tenant, actor, scope), "a different signature");
    forged
}

fn mint(secret: &str, tenant: u64, actor: u64, scope: &str, seconds_from_now: i64) -> String {
    let keys = TokenKeys::hs256(secret.as_bytes()).unwrap();
    keys.mint(&Claims {
        sub: actor.to_string(),
        tid: tenant,
        scope: scope.to_owned(),
        exp: chrono::Utc::now().timestamp() + seconds_from_now,
        nbf: None,
        iat: Some(chrono::Utc::now().timestamp()),
    })
    .unwrap()
}

/// The JSON of a create request.
#[must_use]
pub fn order_json(client_order_ref: &str, sku: &str, quantity: u32) -> String {
    format!(r#"{{"clientOrderRef":"{client_order_ref}","sku":"{sku}","quantity":{quantity}}}"#)
}

/// The JSON of a cancel request.
#[must_use]
pub fn cancel_json(reason: &str) -> String {
    serde_json::json!({ "reason": reason }).to_string()
}

/// The JSON of a capture request.
#[must_use]
pub fn capture_json(amount: u32, currency: &str) -> String {
    format!(r#"{{"amount":{amount},"currency":"{currency}"}}"#)
}

/// The JSON of a refund request.
#[must_use]
pub fn refund_json(amount: u32, reason: &str) -> String {
    serde_json::json!({ "amount": amount, "reason": reason }).to_string()
}

/// A client of one server process.
#[derive(Debug, Clone)]
pub struct Api {
    agent: ureq::Agent,
    base_url: String,
    /// Where idempotent `POST`s are recorded, when anywhere.
    history: Option<History>,
}

impl Api {
    /// A client of `base_url` (`http://host:port`).
    #[must_use]
    pub fn new(base_url: &str) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Self {
            agent,
            base_url: base_url.to_owned(),
            history: None,
        }
    }

    /// This client, recording every idempotent `POST` it sends, and its answer, into
    /// `history` (`docs/testing.md#histories`); otherwise the same client.
    #[must_use]
    pub fn recording(&self, history: &History) -> Self {
        Self {
            history: Some(history.clone()),
            ..self.clone()
        }
    }

    /// Sends any request; header values are raw bytes so tests can send what a lenient
    /// client would refuse.
    ///
    /// # Errors
    /// When no HTTP response arrived (connection refused or reset).
    pub fn try_send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &[u8])],
        body: &[u8],
    ) -> Result<Reply, ureq::Error> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base_url));
        for (name, value) in headers {
            request = request.header(*name, HeaderValue::from_bytes(value).unwrap());
        }
        let request = request.body(body.to_vec()).unwrap();
        let mut response = self.agent.run(request)?;
        Ok(Reply {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.body_mut().read_to_vec()?,
        })
    }

    /// [`Api::try_send`] that must get a response.
    ///
    /// # Panics
    /// When no response arrived.
    #[must_use]
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &[u8])], body: &[u8]) -> Reply {
        self.try_send(method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path}: no response: {e}"))
    }

    /// `POST /api/orders` with a bearer token, a key and a JSON body.
    #[must_use]
    pub fn create(&self, token: &str, key: &str, body: &str) -> Reply {
        self.try_send_create(token, key, body)
            .unwrap_or_else(|e| panic!("POST /api/orders: no response: {e}"))
    }

    /// [`Api::create`] that may get no response at all (the server died).
    ///
    /// # Errors
    /// When no HTTP response arrived.
    pub fn try_send_create(
        &self,
        token: &str,
        key: &str,
        body: &str,
    ) -> Result<Reply, ureq::Error> {
        self.try_post_idempotent("/api/orders", token, key, body)
    }

    /// `POST /api/orders/{order}/payments` with a bearer token, a key and a JSON body.
    #[must_use]
    pub fn capture(&self, token: &str, order: &str, key: &str, body: &str) -> Reply {
        let path = format!("/api/orders/{order}/payments");
        self.try_post_idempotent(&path, token, key, body)
            .unwrap_or_else(|e| panic!("POST {path}: no response: {e}"))
    }

    /// `POST /api/orders/{order}/refunds` with a bearer token, a key and a JSON body.
    #[must_use]
    pub fn refund(&self, token: &str, order: &str, key: &str, body: &str) -> Reply {
        let path = format!("/api/orders/{order}/refunds");
        self.try_post_idempotent(&path, token, key, body)
            .unwrap_or_else(|e| panic!("POST {path}: no response: {e}"))
    }

    /// `POST /api/orders/{order}/cancel` with a bearer token, a key and a JSON body.
    #[must_use]
    pub fn cancel(&self, token: &str, order: &str, key: &str, body: &str) -> Reply {
        let path = format!("/api/orders/{order}/cancel");
        self.try_post_idempotent(&path, token, key, body)
            .unwrap_or_else(|e| panic!("POST {path}: no response: {e}"))
    }

    /// An idempotent `POST` to `path` with a bearer token, a key and a JSON body. Every
    /// idempotent route goes through here, so a recording client records it here.
    ///
    /// # Errors
    /// When no HTTP response arrived.
    pub fn try_post_idempotent(
        &self,
        path: &str,
        token: &str,
        key: &str,
        body: &str,
    ) -> Result<Reply, ureq::Error> {
        let bearer = format!("Bearer {token}");
        let sent_us = self.history.as_ref().map(History::now_us);
        let result = self.try_send(
            "POST",
            path,
            &[
                ("authorization", bearer.as_bytes()),
                ("idempotency-key", key.as_bytes()),
                ("content-type", b"application/json"),
            ],
            body.as_bytes(),
        );
        if let (Some(history), Some(sent_us)) = (&self.history, sent_us) {
            history.push(exchange_of(
                (path, token, key, body),
                result.as_ref().map_err(|_| ()),
                sent_us,
                history.now_us(),
            ));
        }
        result
    }

    /// An admin request: `method path` with a bearer token and, when given, a JSON body.
    #[must_use]
    pub fn admin(&self, method: &str, path: &str, token: &str, body: Option<&str>) -> Reply {
        let bearer = format!("Bearer {token}");
        let mut headers: Vec<(&str, &[u8])> = vec![("authorization", bearer.as_bytes())];
        if body.is_some() {
            headers.push(("content-type", b"application/json"));
        }
        self.send(method, path, &headers, body.unwrap_or("").as_bytes())
    }

    /// `GET path` with an optional bearer token.
    #[must_use]
    pub fn get(&self, path: &str, token: Option<&str>) -> Reply {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &[u8])> = bearer
            .iter()
            .map(|b| ("authorization", b.as_bytes()))
            .collect();
        self.send("GET", path, &headers, b"")
    }

    /// The value of the unlabelled metric `name` on `GET /metrics`.
    ///
    /// # Panics
    /// When the exposition has no such line.
    #[must_use]
    pub fn metric(&self, name: &str) -> f64 {
        let text = String::from_utf8(self.get("/metrics", None).body).unwrap();
        let prefix = format!("{name} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in:\n{text}"))
    }

    /// The value of the labelled series `name{labels}` on `GET /metrics`, `labels` as the
    /// exposition writes them (`result="won"`, or `call="charge",result="definite"` in
    /// the family's label order); `None` when there is no such series: a family shows a
    /// label set only once it was counted (and no family at all before that).
    #[must_use]
    pub fn labelled_metric(&self, name: &str, labels: &str) -> Option<f64> {
        let text = String::from_utf8(self.get("/metrics", None).body).unwrap();
        let prefix = format!("{name}{{{labels}}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .map(|value| value.trim().parse().unwrap())
    }
}
