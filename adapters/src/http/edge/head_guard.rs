//! A guard in front of the HTTP/1 parser. actix-http 3.20 (the latest release) panics on a
//! header name over 64 KiB (an `unwrap` on `HeaderName::from_bytes` in its decoder): the
//! connection then drops without an answer and the panic reaches the log. No header line
//! of this API comes near that length, so a head line over `MAX_LINE` bytes is answered
//! `431` here and the connection ends before the parser sees it. Only heads are measured
//! ([`RequestFraming`]): a body of any size goes on to the parser, which answers `413`.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::request_framing::RequestFraming;

/// What a connection hears when one of its lines is too long; then it is closed.
const REFUSAL: &[u8] = b"HTTP/1.1 431 Request Header Fields Too Large\r\n\
    content-length: 0\r\nconnection: close\r\n\r\n";

/// A connection whose heads' lines are measured as they arrive.
#[derive(Debug)]
pub(crate) struct HeadGuard<S> {
    inner: S,
    framing: RequestFraming,
    refused: bool,
}

impl<S> HeadGuard<S> {
    /// Guards `inner` from its first byte.
    pub(crate) fn new(inner: S) -> Self {
        Self {
            inner,
            framing: RequestFraming::default(),
            refused: false,
        }
    }
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
        if self.framing.follow(&buf.filled()[before..]).is_err() {
            // The parser sees none of it: it reads the end of the connection instead.
            buf.set_filled(before);
            self.refused = true;
            // Best effort: a full send buffer only costs the answer, not the refusal.
            let _ = Pin::new(&mut self.inner).poll_write(cx, REFUSAL);
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
