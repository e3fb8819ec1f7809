//! Closed-loop HTTP load: `concurrency` client threads, each sending its next request as
//! soon as the previous answer arrived, for a fixed time or a fixed list of requests.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::wire::Connection;

/// One request to send: its key and body.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) key: String,
    pub(crate) body: String,
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

fn send(connection: &mut Connection, token: &str, request: &Request) -> Sample {
    let started = Instant::now();
    let answer = connection.create(token, &request.key, &request.body);
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    match answer {
        Ok(answer) => Sample {
            key: request.key.clone(),
            status: answer.status,
            replayed: answer.replayed,
            micros,
        },
        Err(_) => Sample {
            key: request.key.clone(),
            status: 0,
            replayed: false,
            micros,
        },
    }
}

/// Runs for `duration`; worker `w` sends `next(w, i)` as its `i`-th request.
pub(crate) fn for_duration(
    base_url: &str,
    token: &str,
    concurrency: usize,
    duration: Duration,
    next: &(dyn Fn(usize, usize) -> Request + Sync),
) -> Run {
    let barrier = Barrier::new(concurrency);
    let started = Instant::now();
    let samples = std::thread::scope(|s| {
        let workers: Vec<_> = (0..concurrency)
            .map(|w| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut connection = Connection::new(base_url);
                    let mut samples = Vec::new();
                    barrier.wait();
                    let deadline = Instant::now() + duration;
                    let mut i = 0;
                    while Instant::now() < deadline {
                        samples.push(send(&mut connection, token, &next(w, i)));
                        i += 1;
                    }
                    samples
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    Run {
        samples,
        elapsed: started.elapsed(),
    }
}

/// Sends every request of a round at once (one thread per column, released together by a
/// barrier), round after round. Every round must have the same width.
pub(crate) fn in_rounds(base_url: &str, token: &str, rounds: &[Vec<Request>]) -> Run {
    let width = rounds.first().map_or(0, Vec::len);
    let barrier = Barrier::new(width);
    let started = Instant::now();
    let samples = std::thread::scope(|s| {
        let columns: Vec<_> = (0..width)
            .map(|column| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut connection = Connection::new(base_url);
                    let mut samples = Vec::with_capacity(rounds.len());
                    for round in rounds {
                        barrier.wait();
                        samples.push(send(&mut connection, token, &round[column]));
                    }
                    samples
                })
            })
            .collect();
        columns
            .into_iter()
            .flat_map(|c| c.join().unwrap_or_default())
            .collect()
    });
    Run {
        samples,
        elapsed: started.elapsed(),
    }
}
