//! Closed-loop HTTP load: `concurrency` client tasks, each sending its next request as
//! soon as the previous answer arrived, for a fixed time or a fixed list of requests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Barrier;

use crate::wire::Connection;

/// One idempotent `POST` to send: its path, key and body.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) path: String,
    pub(crate) key: String,
    pub(crate) body: String,
}

impl Request {
    /// A create under `key`, for an order referenced as `key`.
    pub(crate) fn create(key: String) -> Self {
        Self::create_referenced(tests::order_json(&key, "SKU-1", 1), key)
    }

    /// A create under `key` of the order `body` describes.
    fn create_referenced(body: String, key: String) -> Self {
        Self {
            path: "/api/orders".to_owned(),
            body,
            key,
        }
    }

    /// A create under `key` of an order referenced as `taken`, which an earlier order has:
    /// answered `409 client_order_ref_conflict`.
    pub(crate) fn create_taken(key: String, taken: &str) -> Self {
        Self::create_referenced(tests::order_json(taken, "SKU-1", 1), key)
    }

    /// A refund of 1 of order `order`, under `key`.
    pub(crate) fn refund(order: u64, key: String) -> Self {
        Self {
            path: format!("/api/orders/{order}/refunds"),
            key,
            body: tests::refund_json(1, "bench"),
        }
    }

    /// A capture of 1500 JPY on order `order`, under a key of its own.
    pub(crate) fn capture(order: u64) -> Self {
        Self {
            path: format!("/api/orders/{order}/payments"),
            key: format!("capture-{order}"),
            body: tests::capture_json(1500, "JPY"),
        }
    }

    /// A cancel of order `order`, under a key of its own.
    pub(crate) fn cancel(order: u64) -> Self {
        Self {
            path: format!("/api/orders/{order}/cancel"),
            key: format!("cancel-{order}"),
            body: tests::cancel_json("bench"),
        }
    }
}

/// What came back for one request.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub(crate) key: String,
    /// HTTP status, or 0 when no response arrived.
    pub(crate) status: u16,
    pub(crate) replayed: bool,
    pub(crate) micros: u64,
}

/// Samples and the wall time they took.
#[derive(Debug, Default)]
pub(crate) struct Run {
    pub(crate) samples: Vec<Sample>,
    pub(crate) elapsed: Duration,
}

impl Run {
    /// The latency at quantile `q` (0..=1), in ms; 0 without samples.
    pub(crate) fn latency_ms(&self, q: f64) -> f64 {
        let mut micros: Vec<u64> = self.samples.iter().map(|s| s.micros).collect();
        micros.sort_unstable();
        if micros.is_empty() {
            return 0.0;
        }
        let index = ((micros.len() - 1) as f64 * q).round() as usize;
        micros[index] as f64 / 1000.0
    }

    /// Requests per second over the run that succeeded (executed or replayed): a `409`
    /// (in progress) or an error is no throughput.
    pub(crate) fn rps(&self) -> f64 {
        let succeeded = self
            .samples
            .iter()
            .filter(|s| (200..300).contains(&s.status))
            .count();
        succeeded as f64 / self.elapsed.as_secs_f64()
    }
}

async fn send(connection: &mut Connection, token: &str, request: &Request) -> Sample {
    let started = Instant::now();
    let answer = connection
        .post(&request.path, token, &request.key, &request.body)
        .await;
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let (status, replayed) = answer.map_or((0, false), |a| (a.status, a.replayed));
    Sample {
        key: request.key.clone(),
        status,
        replayed,
        micros,
    }
}

/// Runs for `duration`; worker `w` sends `next(w, i)` as its `i`-th request.
pub(crate) async fn for_duration(
    base_url: &str,
    token: &str,
    concurrency: usize,
    duration: Duration,
    next: Arc<dyn Fn(usize, usize) -> Request + Send + Sync>,
) -> Run {
    for_duration_over(&[base_url.to_owned()], token, concurrency, duration, next).await
}

/// [`for_duration`] spread over several servers: worker `w` talks to
/// `base_urls[w % base_urls.len()]`.
pub(crate) async fn for_duration_over(
    base_urls: &[String],
    token: &str,
    concurrency: usize,
    duration: Duration,
    next: Arc<dyn Fn(usize, usize) -> Request + Send + Sync>,
) -> Run {
    let barrier = Arc::new(Barrier::new(concurrency));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|w| {
            let (barrier, next) = (Arc::clone(&barrier), Arc::clone(&next));
            let (base_url, token) = (base_urls[w % base_urls.len()].clone(), token.to_owned());
            tokio::spawn(async move {
                let mut connection = Connection::new(&base_url);
                let mut samples = Vec::new();
                barrier.wait().await;
                let deadline = Instant::now() + duration;
                let mut i = 0;
                while Instant::now() < deadline {
                    samples.push(send(&mut connection, &token, &next(w, i)).await);
                    i += 1;
                }
                samples
            })
        })
        .collect();
    let mut samples = Vec::new();
    for worker in workers {
        samples.extend(joined(worker.await));
    }
    Run {
        samples,
        elapsed: started.elapsed(),
    }
}

/// Sends every request of a round at once (one task per column, released together by a
/// barrier), round after round. Every round must have the same width.
pub(crate) async fn in_rounds(base_url: &str, token: &str, rounds: Arc<Vec<Vec<Request>>>) -> Run {
    let width = rounds.first().map_or(0, Vec::len);
    let barrier = Arc::new(Barrier::new(width));
    let started = Instant::now();
    let columns: Vec<_> = (0..width)
        .map(|column| {
            let (barrier, rounds) = (Arc::clone(&barrier), Arc::clone(&rounds));
            let (base_url, token) = (base_url.to_owned(), token.to_owned());
            tokio::spawn(async move {
                let mut connection = Connection::new(&base_url);
                let mut samples = Vec::with_capacity(rounds.len());
                for round in rounds.iter() {
                    barrier.wait().await;
                    samples.push(send(&mut connection, &token, &round[column]).await);
                }
                samples
            })
        })
        .collect();
    let mut samples = Vec::new();
    for column in columns {
        samples.extend(joined(column.await));
    }
    Run {
        samples,
        elapsed: started.elapsed(),
    }
}

/// A load task's samples; a task that panicked ends the run with its panic, since figures
/// without its requests would look valid and be wrong.
fn joined(task: Result<Vec<Sample>, tokio::task::JoinError>) -> Vec<Sample> {
    match task {
        Ok(samples) => samples,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("a load task did not finish: {e}"),
    }
}
