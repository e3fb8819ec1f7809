//! Where log lines go: appended to a buffer in memory and written out by a thread of
//! their own, in batches (`docs/performance.md#the-log-writer-2026-12-02`). A request's
//! thread makes no system call for its line, and the writing thread is woken once per
//! batch rather than once per line: with a queue per line (tracing-appender) the writer
//! emptied the queue, spun, yielded and parked again for nearly every create, about three
//! system calls per request.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long the writing thread lets lines gather after the first one of a batch: how
/// late a line may appear.
const GATHER: Duration = Duration::from_millis(5);

/// Past this many bytes waiting, a logging thread waits for the writer rather than drop
/// lines (about 25 000 request lines).
const MAX_PENDING: usize = 4 * 1024 * 1024;

/// What a batch buffer keeps of its capacity once written, so a burst's memory returns.
const KEEP_CAPACITY: usize = 64 * 1024;

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    closed: bool,
}

#[derive(Debug)]
struct Shared {
    pending: Mutex<Pending>,
    /// Signalled when the first line of a batch arrives, and on close.
    arrived: Condvar,
    /// Signalled when the writer has taken a batch.
    taken: Condvar,
    max_pending: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // Appending bytes cannot leave them half-made: a panic elsewhere need not stop the log.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn append(&self, line: &[u8]) {
        let mut pending = self.lock();
        while pending.bytes.len() >= self.max_pending && !pending.closed {
            pending = self
                .taken
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let first = pending.bytes.is_empty();
        pending.bytes.extend_from_slice(line);
        drop(pending);
        if first {
            self.arrived.notify_one();
        }
    }

    /// The next batch, after waiting for its first line and then `gather` (cut short by a
    /// close); `true` with the last one.
    fn take(&self, batch: &mut Vec<u8>, gather: Duration) -> bool {
        let mut pending = self.lock();
        while pending.bytes.is_empty() && !pending.closed {
            pending = self
                .arrived
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if !pending.closed {
            pending = match self
                .arrived
                .wait_timeout_while(pending, gather, |p| !p.closed)
            {
                Ok((pending, _)) => pending,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        std::mem::swap(batch, &mut pending.bytes);
        let closed = pending.closed;
        drop(pending);
        self.taken.notify_all();
        closed
    }
}

/// The writer the log layer formats into; each event's line arrives in one `write`.
#[derive(Debug, Clone)]
pub(crate) struct BatchedLines {
    shared: Arc<Shared>,
}

/// Held until the process ends: dropping it writes out what is still waiting.
#[derive(Debug)]
pub(crate) struct WriterGuard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Lines to stderr, in batches.
///
/// # Errors
/// When the writing thread cannot be started.
pub(crate) fn batched_stderr() -> std::io::Result<(BatchedLines, WriterGuard)> {
    batched(std::io::stderr(), GATHER, MAX_PENDING)
}

fn batched(
    mut out: impl Write + Send + 'static,
    gather: Duration,
    max_pending: usize,
) -> std::io::Result<(BatchedLines, WriterGuard)> {
    let shared = Arc::new(Shared {
        pending: Mutex::default(),
        arrived: Condvar::new(),
        taken: Condvar::new(),
        max_pending,
    });
    let thread = std::thread::Builder::new()
        .name("log-writer".into())
        .spawn({
            let shared = Arc::clone(&shared);
            move || {
                let mut batch = Vec::new();
                loop {
                    let last = shared.take(&mut batch, gather);
                    // Nowhere to report a failed write to stderr: the lines are lost, as
                    // with `eprintln!`.
                    let _ = out.write_all(&batch).and_then(|()| out.flush());
                    batch.clear();
                    batch.shrink_to(KEEP_CAPACITY);
                    if last {
                        return;
                    }
                }
            }
        })?;
    let lines = BatchedLines {
        shared: Arc::clone(&shared),
    };
    let guard = WriterGuard {
        shared,
        thread: Some(thread),
    };
    Ok((lines, guard))
}

/// One event's writer.
#[derive(Debug)]
pub(crate) struct LineWriter<'a>(&'a Shared);

impl Write for LineWriter<'_> {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        self.0.append(line);
        Ok(line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for BatchedLines {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter(&self.shared)
    }
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.arrived.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests;
