//! The log writer against a sink that holds each write until released, so each test knows
//! what every batch holds.

use std::sync::mpsc::{Receiver, Sender, channel};

use super::*;

const BOUND: Duration = Duration::from_secs(10);

/// A sink that says when a write begins, waits for a release, then hands the bytes on.
struct Sink {
    entered: Sender<()>,
    gate: Receiver<()>,
    writes: Sender<Vec<u8>>,
}

struct Test {
    lines: BatchedLines,
    guard: WriterGuard,
    entered: Receiver<()>,
    release: Sender<()>,
    written: Receiver<Vec<u8>>,
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let _ = self.entered.send(());
        self.gate
            .recv_timeout(BOUND)
            .map_err(std::io::Error::other)?;
        let _ = self.writes.send(bytes.to_vec());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn start(gather: Duration, max_pending: usize) -> Test {
    let (entered_tx, entered) = channel();
    let (release, gate) = channel();
    let (writes, written) = channel();
    let sink = Sink {
        entered: entered_tx,
        gate,
        writes,
    };
    let (lines, guard) = batched(sink, gather, max_pending).unwrap();
    Test {
        lines,
        guard,
        entered,
        release,
        written,
    }
}

fn line(lines: &BatchedLines, text: &str) {
    lines.make_writer().write_all(text.as_bytes()).unwrap();
}

impl Test {
    /// Waits until the writer is inside its next write.
    fn writing(&self) {
        self.entered.recv_timeout(BOUND).unwrap();
    }

    fn release(&self, writes: usize) {
        for _ in 0..writes {
            self.release.send(()).unwrap();
        }
    }

    /// Ends the writer and returns every batch it wrote.
    fn finish(self) -> Vec<Vec<u8>> {
        drop(self.guard);
        self.written.try_iter().collect()
    }
}

#[test]
fn lines_written_while_a_batch_is_out_go_together_in_the_next() {
    let test = start(Duration::ZERO, MAX_PENDING);
    line(&test.lines, "first\n");
    test.writing();
    for n in 0..100 {
        line(&test.lines, &format!("line {n}\n"));
    }
    test.release(2);
    let expected: String = (0..100).map(|n| format!("line {n}\n")).collect();
    assert_eq!(test.finish(), [b"first\n".to_vec(), expected.into_bytes()]);
}

#[test]
fn the_lines_still_waiting_are_written_when_the_guard_drops() {
    // The writer gathers for ten seconds; the drop cuts that short.
    let test = start(BOUND, MAX_PENDING);
    line(&test.lines, "one\n");
    line(&test.lines, "two\n");
    test.release(1);
    assert_eq!(test.finish(), [b"one\ntwo\n".to_vec()]);
}

#[test]
fn a_full_buffer_makes_the_logging_thread_wait_and_loses_nothing() {
    let test = start(Duration::ZERO, 8);
    line(&test.lines, "held\n");
    test.writing();
    let (done, finished) = channel();
    let logger = std::thread::spawn({
        let lines = test.lines.clone();
        move || {
            // 12 bytes wait after the second line: the third waits for the writer.
            for text in ["aaaaa\n", "bbbbb\n", "ccccc\n"] {
                line(&lines, text);
            }
            let _ = done.send(());
        }
    });
    // The writer is held in the sink, so nothing can take the waiting bytes.
    assert!(finished.recv_timeout(Duration::from_millis(200)).is_err());
    test.release(3);
    finished.recv_timeout(BOUND).unwrap();
    logger.join().unwrap();
    let all: Vec<u8> = test.finish().concat();
    assert_eq!(all, b"held\naaaaa\nbbbbb\nccccc\n");
}
