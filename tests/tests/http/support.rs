//! One server process on one fresh database, and the checks most tests end with.

use tests::{
    ALL_PERMISSIONS, Api, FinalState, History, Reply, Service, ServiceOptions, TestDb,
    assert_legal, order_json, token,
};

/// A database, a server process on it, and a client.
pub(crate) struct App {
    pub(crate) db: TestDb,
    pub(crate) service: Service,
    pub(crate) api: Api,
}

impl App {
    /// A server with the default configuration.
    pub(crate) async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// A server whose options `configure` adjusts.
    pub(crate) async fn start_with(configure: impl FnOnce(&mut ServiceOptions)) -> Self {
        let db = TestDb::create().await;
        let mut options = ServiceOptions::new(db.url());
        configure(&mut options);
        let service = Service::start(&options);
        let api = Api::new(service.base_url());
        Self { db, service, api }
    }

    /// Asserts that nothing was stored: no record, no order.
    pub(crate) async fn assert_nothing_stored(&self, context: &str) {
        assert_eq!(
            (self.db.total_records().await, self.db.total_orders().await),
            (0, 0),
            "{context}: a rejected request stored something"
        );
    }

    /// Stops the server and drops the database.
    pub(crate) async fn finish(self) {
        drop(self.service);
        self.db.drop_database().await;
    }
}

/// A token of tenant 1, actor 1 with every permission.
pub(crate) fn full_token() -> String {
    token(1, 1, ALL_PERMISSIONS)
}

/// What a client told "retry with the same key" does: retries while the answer is 503.
pub(crate) fn retry_while_unavailable(mut send: impl FnMut() -> tests::Reply) -> tests::Reply {
    for _ in 0..20 {
        let reply = send();
        if reply.status != 503 {
            return reply;
        }
    }
    panic!("still 503 after 20 retries with the database back");
}

/// Creates an order of tenant 1 as `reference` and answers its id.
pub(crate) fn order(app: &App, reference: &str) -> String {
    let created = app
        .api
        .create(&full_token(), reference, &order_json(reference, "SKU-1", 1));
    assert_eq!(created.status, 201);
    created.json()["orderId"].as_str().unwrap().to_owned()
}

/// The reply is the problem `code` with `status`.
pub(crate) fn assert_problem(reply: &Reply, status: u16, code: &str, context: &str) {
    assert_eq!(
        reply.status_code(),
        (status, Some(code.to_owned())),
        "{context}"
    );
}

impl App {
    /// A client of this server recording every idempotent `POST` into a new history
    /// (`docs/testing.md#histories`), and that history.
    pub(crate) fn recording(&self) -> (History, Api) {
        let history = History::new();
        let api = self.api.recording(&history);
        (history, api)
    }

    /// Asserts `history` has a legal explanation in this server's database.
    pub(crate) async fn assert_legal(&self, history: &History, name: &str) {
        assert_legal(history, &FinalState::read(&self.db).await, name);
    }
}
