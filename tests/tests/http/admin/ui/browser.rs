//! What the browser tests share: a server with the page on, a private chromedriver and a
//! headless Chromium session, every wait bounded, and screenshots under
//! `target/admin-ui/`.

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use tests::{Chromedriver, chromium_binary};

use crate::support::App;

/// Chromium on two busy cores can take seconds to draw a page.
const WAIT: Duration = Duration::from_secs(30);

/// A server with `ADMIN_UI=1`. Its public origin is left to the default, `http://` and the
/// address it listens on: [`tests::Service::base_url`], the address these tests and
/// Chromium open, so the page's own forms pass the origin check.
pub(super) async fn app_with_ui() -> App {
    App::start_with(|options| options.env.push(("ADMIN_UI".into(), "1".into()))).await
}

/// A headless Chromium session, and the chromedriver it runs under (dropped last).
pub(super) struct Browser {
    pub(super) client: Client,
    base: String,
    _driver: Chromedriver,
}

impl Browser {
    pub(super) async fn open(app: &App) -> Self {
        let driver = Chromedriver::start();
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": chromium_binary(),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--window-size=1280,900"],
            }
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("an object");
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url())
            .await
            .unwrap_or_else(|e| panic!("no Chromium session: {e}\n{}", driver.log()));
        Self {
            client,
            base: app.service.base_url().to_owned(),
            _driver: driver,
        }
    }

    pub(super) async fn goto(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .unwrap();
    }

    /// The first element `css` matches, waiting for it at most [`WAIT`].
    pub(super) async fn wait_for(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css} within {WAIT:?}: {e}"))
    }

    /// Clicks the first element `css` matches, once it is there.
    pub(super) async fn click(&self, css: &str) {
        self.wait_for(css).await.click().await.unwrap();
    }

    /// Types `text` into the first field `css` matches, once it is there.
    pub(super) async fn type_into(&self, css: &str, text: &str) {
        self.wait_for(css).await.send_keys(text).await.unwrap();
    }

    /// Waits, at most [`WAIT`], until the page's heading reads `expected`: after a click that
    /// submits a form, the page before it may still be the one shown for a moment.
    pub(super) async fn wait_for_heading(&self, expected: &str) {
        tests::wait_until(
            WAIT,
            &format!("the heading {expected:?}"),
            || async {
                match self.client.find(Locator::Css("h1")).await {
                    Ok(heading) => heading.text().await.unwrap_or_default(),
                    Err(_) => String::new(),
                }
            },
            |heading| heading == expected,
        )
        .await;
    }

    /// The path of the page shown now.
    pub(super) async fn path(&self) -> String {
        self.client.current_url().await.unwrap().path().to_owned()
    }

    pub(super) async fn text(&self) -> String {
        self.wait_for("body").await.text().await.unwrap()
    }

    /// Signs in through the form with `token`.
    pub(super) async fn sign_in(&self, token: &str) {
        self.goto("/admin/sign-in").await;
        self.type_into("input[name=token]", token).await;
        self.click("form.sign-in button").await;
    }

    /// Writes `target/admin-ui/<name>.png`.
    pub(super) async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        let dir = screenshots();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    pub(super) async fn close(self) {
        self.client.close().await.unwrap();
    }
}

/// `target/admin-ui/` of the workspace (or of `CARGO_TARGET_DIR`).
fn screenshots() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
            PathBuf::from,
        )
        .join("admin-ui")
}
