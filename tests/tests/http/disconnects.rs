//! A client that hangs up while its request is held at each point of the idempotent flow
//! (`docs/http-api.md#a-client-that-hangs-up`): a create, a cancel and a capture's
//! acceptance, each held before its record, after it, before `COMMIT` and after it, on a
//! server with one connection per worker's pool, on both stores. actix-web lets a handler
//! whose client closed run to its end (a half-closed connection is allowed), so each held
//! request executes once and its retry replays it. A test build told to drop such a
//! request instead drops it where it is held, its transaction open: its connection must
//! end with it, so the retry executes it (or, held after `COMMIT`, replays it).

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use application::ports::KeyPoint;
use tests::{
    ALL_PERMISSIONS, Api, Backend, HOLD_KEY_PREFIX, PauseDir, Reply, Service, ServiceOptions,
    SqliteDb, TestDb, cancel_json, capture_json, order_json, token, wait_for_metric, wait_until,
};

/// How long a released request may take to end, with the machine busy.
const BOUND: Duration = Duration::from_secs(60);

/// What the server does with a request whose client hung up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HangUp {
    /// As every build does: the request runs to its end.
    RunsToItsEnd,
    /// `IDEMPOTENCY_TEST_DROP_ON_HANG_UP`: the request is dropped where it is held.
    Drops,
}

/// Requests on connections of their own: the acceptor hands connections to the HTTP
/// workers in turn, so these reach every worker's pool (two workers on two cores).
const PROBES: usize = 4;

/// The idempotent `POST`s held here.
#[derive(Debug, Clone, Copy)]
enum Op {
    Create,
    Cancel,
    Capture,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Cancel => "cancel",
            Self::Capture => "capture",
        }
    }

    fn operation(self) -> &'static str {
        match self {
            Self::Create => "orders.create.v1",
            Self::Cancel => "orders.cancel.v1",
            Self::Capture => "payments.capture.v1",
        }
    }

    /// Its answer once executed.
    fn status(self) -> u16 {
        match self {
            Self::Create => 201,
            Self::Cancel => 200,
            Self::Capture => 202,
        }
    }
}

/// One request: its path, body and key, and the order it acts on (none for a create).
struct Held {
    op: Op,
    key: String,
    path: String,
    body: String,
    order: Option<String>,
    /// The create's `clientOrderRef`.
    reference: String,
}

struct Setup<'a, B> {
    db: &'a B,
    api: &'a Api,
    bearer: &'a str,
}

impl<B: Backend> Setup<'_, B> {
    /// A fresh order for the operation to act on, so each case starts from the same state.
    fn held(&self, op: Op, point: KeyPoint) -> Held {
        let key = format!("{HOLD_KEY_PREFIX}{}-{}", op.name(), point.name());
        let reference = format!("REF-{}-{}", op.name(), point.name());
        let order = match op {
            Op::Create => None,
            Op::Cancel | Op::Capture => {
                let created =
                    self.api
                        .create(self.bearer, &reference, &order_json(&reference, "SKU-1", 1));
                assert_eq!(created.status, 201, "the order to act on");
                Some(created.json()["orderId"].as_str().unwrap().to_owned())
            }
        };
        let (path, body) = match (op, &order) {
            (Op::Create, _) => ("/api/orders".to_owned(), order_json(&reference, "SKU-1", 2)),
            (Op::Cancel, Some(order)) => (
                format!("/api/orders/{order}/cancel"),
                cancel_json("changed my mind"),
            ),
            (Op::Capture, Some(order)) => (
                format!("/api/orders/{order}/payments"),
                capture_json(1500, "JPY"),
            ),
            _ => unreachable!("every operation but a create has its order"),
        };
        Held {
            op,
            key,
            path,
            body,
            order,
            reference,
        }
    }

    /// The executions of `held` the database shows: 0 or 1 are legal.
    async fn executions(&self, held: &Held) -> i64 {
        match (held.op, &held.order) {
            (Op::Create, _) => {
                i64::try_from(self.db.order_ids(1, &held.reference).await.len()).unwrap()
            }
            // A cancel changes the order once: CANCELLED, at its second revision.
            (Op::Cancel, Some(order)) => {
                let cancelled = self
                    .db
                    .count_rows(&format!(
                        "orders WHERE id = {order} AND status = 'CANCELLED'"
                    ))
                    .await;
                let revisions = self
                    .db
                    .count_rows(&format!("orders WHERE id = {order} AND revision > 1"))
                    .await;
                assert_eq!(cancelled, revisions, "a cancel changes its order once");
                cancelled
            }
            (Op::Capture, Some(order)) => {
                self.db
                    .count_rows(&format!("operations WHERE order_id = {order}"))
                    .await
            }
            _ => unreachable!("every operation but a create has its order"),
        }
    }
}

/// Sends `held` on a connection of its own, and hangs up both ways once the server says
/// it holds the request at `point`.
fn send_and_hang_up(base_url: &str, bearer: &str, held: &Held, pause: &PauseDir, point: KeyPoint) {
    let host = base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = format!(
        "POST {} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {bearer}\r\n\
         Idempotency-Key: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        held.path,
        held.key,
        held.body.len(),
        held.body,
    );
    stream.write_all(request.as_bytes()).unwrap();
    pause.wait_until_key_reached(&held.key, point);
    stream.shutdown(Shutdown::Both).unwrap();
    drop(stream);
}

fn retry(api: &Api, bearer: &str, held: &Held) -> Reply {
    api.try_post_idempotent(&held.path, bearer, &held.key, &held.body)
        .unwrap_or_else(|error| panic!("{}: the retry got no answer: {error}", held.key))
}

/// The retry's first final answer: a dropped request's transaction may still hold the
/// key for a moment (`409 request_in_progress`, or `503` past a lock wait).
async fn retry_until_final(api: &Api, bearer: &str, held: &Held) -> Reply {
    wait_until(
        BOUND,
        &format!("{}: a final answer to the retry", held.key),
        || std::future::ready(retry(api, bearer, held)),
        |reply| ![409, 503].contains(&reply.status),
    )
    .await
}

async fn a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none<B: Backend>(
    hang_up: HangUp,
) {
    let db = B::create().await;
    let pause = PauseDir::new();
    let mut options = ServiceOptions::new(&db.server_url());
    options.pause_dir = Some(pause.path().to_owned());
    // One connection for transactions: one returned with its transaction open would meet
    // the very next request. Batching stays on, as it is by default: a request alone is a
    // batch of one, which runs the flow of every other request.
    options
        .env
        .push(("DATABASE_MAX_CONNECTIONS".into(), "1".into()));
    if hang_up == HangUp::Drops {
        options
            .env
            .push(("IDEMPOTENCY_TEST_DROP_ON_HANG_UP".into(), "1".into()));
    }
    let service = Service::start(&options);
    let api = Api::new(service.base_url());
    let bearer = token(1, 1, ALL_PERMISSIONS);
    let setup = Setup {
        db: &db,
        api: &api,
        bearer: &bearer,
    };
    for op in [Op::Create, Op::Cancel, Op::Capture] {
        for point in KeyPoint::ALL {
            let held = setup.held(op, point);
            let case = held.key.clone();
            let labels = format!("operation=\"{}\",outcome=\"executed\"", op.operation());
            let executed = api
                .labelled_metric("idempotent_outcomes_total", &labels)
                .unwrap_or(0.0);
            pause.arm_key(&held.key, point);
            send_and_hang_up(service.base_url(), &bearer, &held, &pause, point);
            // A dropped request is never released: its retry answers once it is gone.
            let first = if hang_up == HangUp::Drops {
                let first = retry_until_final(&api, &bearer, &held).await;
                pause.release_key(&held.key, point);
                Some(first)
            } else {
                pause.release_key(&held.key, point);
                // The server's own count says the hung-up request ended.
                wait_for_metric(
                    &api,
                    "idempotent_outcomes_total",
                    &labels,
                    executed + 1.0,
                    BOUND,
                )
                .await;
                let before = setup.executions(&held).await;
                assert_eq!(before, 1, "{case}: executions before the retry");
                None
            };

            // Each worker's one connection serves the next request: none was pooled with
            // a transaction open or an answer unread.
            for probe in 0..PROBES {
                let probe_ref = format!("PROBE-{case}-{probe}");
                let fresh = Api::new(service.base_url());
                let created =
                    fresh.create(&bearer, &probe_ref, &order_json(&probe_ref, "SKU-2", 1));
                assert_eq!(
                    created.status, 201,
                    "{case}: the next requests on the pools"
                );
            }

            let first = first.unwrap_or_else(|| retry(&api, &bearer, &held));
            assert_eq!(first.status, op.status(), "{case}: the retry's answer");
            let replayed = first.header("idempotent-replayed").as_deref() == Some("true");
            let committed = hang_up == HangUp::RunsToItsEnd || point == KeyPoint::Committed;
            assert_eq!(
                replayed, committed,
                "{case}: the retry replays exactly when the hung-up request committed"
            );
            let again = retry(&api, &bearer, &held);
            assert_eq!(
                (again.status, &again.body),
                (first.status, &first.body),
                "{case}: one answer for the key"
            );
            assert_eq!(
                setup.executions(&held).await,
                1,
                "{case}: one execution after the retries"
            );
            // A transaction left open would still hold the order's row.
            if let Some(order) = &held.order {
                let read = api.get(&format!("/api/orders/{order}"), Some(&bearer));
                assert_eq!(read.status, 200, "{case}: the order reads");
            }
        }
    }
    drop(service);
    db.finish().await;
}

#[tokio::test]
async fn mysql_a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none() {
    a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none::<TestDb>(
        HangUp::RunsToItsEnd,
    )
    .await;
}

#[tokio::test]
async fn sqlite_a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none() {
    a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none::<SqliteDb>(
        HangUp::RunsToItsEnd,
    )
    .await;
}

#[tokio::test]
async fn mysql_a_request_dropped_at_any_point_ends_its_transaction_with_its_connection() {
    a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none::<TestDb>(HangUp::Drops).await;
}

#[tokio::test]
async fn sqlite_a_request_dropped_at_any_point_ends_its_transaction_with_its_connection() {
    a_client_that_hangs_up_at_any_point_leaves_one_execution_or_none::<SqliteDb>(HangUp::Drops)
        .await;
}
