//! A collector that is down or silent: requests are answered as ever, and every span let
//! go is counted (`tracing_spans_dropped_total`).

use tests::{Api, Service, ServiceOptions, TestDb, wait_for_metric};

use crate::support::{PATIENCE, create_with, traceparent};

fn server(db: &TestDb, endpoint: &str, env: &[(&str, &str)]) -> Service {
    let mut options = ServiceOptions::new(db.url());
    options.env = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)]
        .iter()
        .chain(env)
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    Service::start(&options)
}

const DROPPED: &str = "tracing_spans_dropped_total";

fn dropped(api: &Api, reason: &str) -> f64 {
    api.labelled_metric(DROPPED, &format!(r#"reason="{reason}""#))
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_refused_export_is_counted_and_the_requests_are_answered() {
    let db = TestDb::create().await;
    // Bound and never listening: every connection is refused.
    let held = tokio::net::TcpSocket::new_v4().unwrap();
    held.bind(([127, 0, 0, 1], 0).into()).unwrap();
    let endpoint = format!("http://{}", held.local_addr().unwrap());
    let server = server(&db, &endpoint, &[("OTEL_BSP_SCHEDULE_DELAY", "50")]);
    let api = Api::new(server.base_url());

    for n in 0..20 {
        let reply = create_with(
            &api,
            &format!("down-{n}"),
            &[("traceparent", &traceparent())],
        );
        assert_eq!(reply.status, 201);
    }

    let api = Api::new(server.base_url());
    wait_for_metric(&api, DROPPED, r#"reason="export_failed""#, 1.0, PATIENCE).await;
    assert_eq!(dropped(&api, "queue_full"), 0.0);

    drop(server);
    db.drop_database().await;
}

#[tokio::test]
async fn a_silent_collector_fills_the_bounded_queue_and_the_excess_is_dropped() {
    let db = TestDb::create().await;
    // Listening and never answering: the export hangs until its timeout while the spans
    // of the requests meet a full queue.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());
    let server = server(
        &db,
        &endpoint,
        &[
            ("OTEL_BSP_MAX_QUEUE_SIZE", "4"),
            ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4"),
            ("OTEL_BSP_SCHEDULE_DELAY", "50"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "600000"),
        ],
    );
    let api = Api::new(server.base_url());

    for n in 0..20 {
        let reply = create_with(&api, &format!("silent-{n}"), &[]);
        assert_eq!(reply.status, 201);
    }

    // Each create makes about ten spans: all but the queue's four are let go.
    wait_for_metric(&api, DROPPED, r#"reason="queue_full""#, 150.0, PATIENCE).await;
    assert_eq!(dropped(&api, "export_failed"), 0.0);

    drop(server);
    db.drop_database().await;
}
