//! The embedded store's statements are spans too: SQLite runs them on a blocking thread,
//! where no span is current, so the span is made where the statement is sent.

use tests::otlp::{OtlpReceiver, SpanKind};
use tests::{Api, Service, ServiceOptions, TempDir};

use crate::support::{
    PATIENCE, TRACE_ID, assert_parent, create_with, exporting_to, has_all, of_trace, the,
    traceparent,
};

#[tokio::test]
async fn the_embedded_store_s_statements_are_children_of_their_transaction() {
    let dir = TempDir::new("tracing-embedded");
    let receiver = OtlpReceiver::start().unwrap();
    let options = ServiceOptions {
        current_dir: Some(dir.path().to_owned()),
        env: exporting_to(&receiver, "orders-embedded"),
        ..ServiceOptions::new("")
    };
    let server = Service::start(&options);
    let api = Api::new(server.base_url());

    assert_eq!(
        create_with(&api, "embedded-1", &[("traceparent", &traceparent())]).status,
        201
    );

    let statements = [
        "begin",
        "record insert",
        "order insert",
        "outbox insert",
        "record completion",
    ];
    let expected: Vec<&str> = ["POST /api/orders", "transaction"]
        .into_iter()
        .chain(statements)
        .collect();
    let spans = receiver
        .wait_for(|spans| has_all(spans, TRACE_ID, &expected), PATIENCE)
        .unwrap_or_else(|spans| panic!("the embedded store's spans never arrived: {spans:#?}"));
    let trace = of_trace(&spans, TRACE_ID);
    let transaction = the(&trace, "transaction");
    for name in statements {
        let statement = the(&trace, name);
        assert_eq!(statement.kind, SpanKind::Client);
        assert_parent(statement, transaction);
        assert_eq!(
            statement.attribute("db.system.name"),
            Some("sqlite"),
            "{statement:#?}"
        );
    }

    drop(server);
}
