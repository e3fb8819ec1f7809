//! A guard in front of the HTTP/1 parser. actix-http 3.20 (the latest release) panics on a
//! header name over 64 KiB (an `unwrap` on `HeaderName::from_bytes` in its decoder): the
//! connection then drops without an answer and the panic reaches the log. No header line
//! of this API comes near that length, so a line over [`MAX_LINE`] bytes is answered `431`
//! here and the connection ends before the parser sees it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest line a connection may send: the longest header name actix-http handles.
pub(crate) const MAX_LINE: usize = 65_535;

/// What a connection hears when one of its lines is too long; then it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 431 Request Header Fields Too Large\r\n\
    content-length: 0\r\nconnection: close\r\n\r\n";

/// A connection whose lines are measured as they arrive.
#[derive(Debug)]
pub(crate) struct HeadGuard<S> {
    inner: S,
    line: usize,
    refused: bool,
}

impl<S> HeadGuard<S> {
    /// Guards `inner` from its first byte.
    pub(crate) fn new(inner: S) -> Self {
        Self {
            inner,
            line: 0,
            refused: false,
        }
    }
}

/// The length of the line in progress after `bytes`, or `None` once it is over the limit.
fn measure(mut line: usize, bytes: &[u8]) -> Option<usize> {
    for &byte in bytes {
        line = if byte == b'\n' { 0 } else { line + 1 };
        if line > MAX_LINE {
            return None;
        }
    }
    Some(line)
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for HeadGuard<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.refused {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        match measure(self.line, &buf.filled()[before..]) {
            Some(line) => self.line = line,
            None => {
                // The parser sees none of it: it reads the end of the connection instead.
                buf.set_filled(before);
                self.refused = true;
                // Best effort: a full send buffer only costs the answer, not the refusal.
                let _ = Pin::new(&mut self.inner).poll_write(cx, REFUSAL);
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadGuard<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_measured_across_reads_and_ends_at_a_newline() {
        let half = vec![b'x'; MAX_LINE / 2];
        let line = measure(0, &half).unwrap();
        assert_eq!(measure(line, &half), Some(MAX_LINE / 2 * 2));
        assert_eq!(measure(MAX_LINE - 1, b"\r\nGET"), Some(3));
        assert_eq!(measure(MAX_LINE, b"x"), None);
    }
}
