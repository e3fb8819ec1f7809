//! What a process answers from memory, over real HTTP: a retry from its copy of the
//! completed record, and a same-key request that arrives while the first one runs from
//! that one's result; each counted on `/metrics`, and answered with the same bytes as
//! from the database.

use std::time::Duration;

use tests::{PauseDir, order_json, wait_for_metric};

use crate::support::{App, full_token};

const HITS: &str = "idempotent_replay_cache_hits_total";
const WAITS: &str = "idempotent_same_key_waits_total";

#[tokio::test]
async fn a_retry_is_answered_from_memory_and_with_the_cache_off_from_the_database() {
    // A long time to live: the copy must still be there however slow the machine is.
    for (ttl, hits) in [("600", 1.0), ("0", 0.0)] {
        let app = App::start_with(|o| {
            o.env.push(("REPLAY_CACHE_TTL_SECS".into(), ttl.into()));
        })
        .await;
        let body = order_json("REF-1", "SKU-1", 1);
        let first = app.api.create(&full_token(), "mem-1", &body);
        // The create leaves no copy; its first replay reads the database and leaves one.
        let replays = [(); 2].map(|()| app.api.create(&full_token(), "mem-1", &body));
        let other = app
            .api
            .create(&full_token(), "mem-1", &order_json("REF-2", "SKU-1", 1));

        assert_eq!(first.status, 201, "ttl {ttl}");
        for retry in &replays {
            assert_eq!(retry.body, first.body, "ttl {ttl}");
            assert_eq!(retry.header("idempotent-replayed").as_deref(), Some("true"));
        }
        assert_eq!(
            other.status, 422,
            "another body, from memory or not: ttl {ttl}"
        );
        // The second replay and the refused body met the copy.
        assert_eq!(app.api.metric(HITS), 2.0 * hits, "ttl {ttl}");
        app.finish().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_same_key_request_waits_in_memory_and_replays_the_first_one_s_answer() {
    let pause = PauseDir::new();
    let app = App::start_with(|o| o.pause_dir = Some(pause.path().to_owned())).await;
    let token = full_token();
    let body = order_json("REF-1", "SKU-1", 1);
    let send = || {
        let (api, token, body) = (app.api.clone(), token.clone(), body.clone());
        tokio::task::spawn_blocking(move || api.create(&token, "pause-mem", &body))
    };
    let first = send();
    pause.wait_until_paused("pause-mem");
    let second = send();
    wait_for_metric(&app.api, WAITS, "", 1.0, Duration::from_secs(30)).await;
    pause.release("pause-mem");
    let (first, second) = (first.await.unwrap(), second.await.unwrap());

    assert_eq!(first.status, 201);
    assert_eq!(first.header("idempotent-replayed"), None);
    assert_eq!(second.body, first.body);
    assert_eq!(
        second.header("idempotent-replayed").as_deref(),
        Some("true")
    );
    assert_eq!(app.db.order_ids(1, "REF-1").await.len(), 1);
    app.finish().await;
}
