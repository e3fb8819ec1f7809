//! Load from several client threads at once, as the storms send it: blocking HTTP clients
//! off the test's async runtime.

use crate::Api;

/// Runs `request(api, i)` for `i` in `0..n` on `threads` threads, thread `t` sending
/// through `base_urls[t % base_urls.len()]`; every result, in no particular order.
///
/// # Panics
/// When a request panicked (its assertion failed).
pub async fn spread<T, F>(base_urls: Vec<String>, n: usize, threads: usize, request: F) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(&Api, usize) -> Vec<T> + Send + Sync + 'static,
{
    tokio::task::spawn_blocking(move || {
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let (base_urls, request) = (&base_urls, &request);
                    scope.spawn(move || {
                        let api = Api::new(&base_urls[t % base_urls.len()]);
                        (t..n)
                            .step_by(threads)
                            .flat_map(|i| request(&api, i))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a client thread"))
                .collect()
        })
    })
    .await
    .expect("the clients' task")
}
