//! Where each request's head ends and its body does, followed as the bytes of an HTTP/1
//! connection arrive, so that the head guard measures the lines of heads only: a body (a
//! minified JSON document has no newline) is skipped by its `Content-Length`, or chunk by
//! chunk when it is sent chunked, and the next request's head is measured again.

/// The longest line a head may have: the longest header name actix-http handles.
pub(crate) const MAX_LINE: usize = 65_535;

/// The start of a line kept to read the fields that frame the body: longer lines cannot
/// be `Content-Length` or `Transfer-Encoding` of any real request.
const KEPT: usize = 64;

/// A head line, a chunk-size line or a trailer line over [`MAX_LINE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineTooLong;

/// A connection's position in its stream of requests.
#[derive(Debug, Clone)]
pub(crate) struct RequestFraming {
    state: State,
    line: Line,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Head {
        started: bool,
        content_length: u64,
        chunked: bool,
    },
    Body {
        remaining: u64,
    },
    ChunkSize,
    /// The chunk's data and the line end after it.
    ChunkData {
        remaining: u64,
    },
    Trailers,
}

const NEW_HEAD: State = State::Head {
    started: false,
    content_length: 0,
    chunked: false,
};

/// The line in progress: its length and its first [`KEPT`] bytes.
#[derive(Debug, Clone)]
struct Line {
    len: usize,
    kept: Vec<u8>,
}

impl Line {
    fn text(&self) -> &[u8] {
        self.kept.strip_suffix(b"\r").unwrap_or(&self.kept)
    }
}

impl Default for RequestFraming {
    fn default() -> Self {
        Self {
            state: NEW_HEAD,
            line: Line {
                len: 0,
                kept: Vec::with_capacity(KEPT),
            },
        }
    }
}

impl RequestFraming {
    /// Follows `bytes`, the next ones the connection sent.
    ///
    /// # Errors
    /// [`LineTooLong`] once a line outside every body is over [`MAX_LINE`].
    pub(crate) fn follow(&mut self, mut bytes: &[u8]) -> Result<(), LineTooLong> {
        while !bytes.is_empty() {
            if let State::Body { remaining } | State::ChunkData { remaining } = &mut self.state {
                let taken = usize::try_from(*remaining).map_or(bytes.len(), |r| r.min(bytes.len()));
                *remaining = remaining.saturating_sub(u64::try_from(taken).unwrap_or(u64::MAX));
                bytes = &bytes[taken..];
                if *remaining == 0 {
                    self.state = match self.state {
                        State::ChunkData { .. } => State::ChunkSize,
                        _ => NEW_HEAD,
                    };
                }
                continue;
            }
            let end = bytes.iter().position(|&b| b == b'\n');
            let part = &bytes[..end.unwrap_or(bytes.len())];
            self.line.len += part.len();
            if self.line.len > MAX_LINE {
                return Err(LineTooLong);
            }
            let room = KEPT.saturating_sub(self.line.kept.len());
            self.line
                .kept
                .extend_from_slice(&part[..room.min(part.len())]);
            let Some(end) = end else {
                return Ok(());
            };
            bytes = &bytes[end + 1..];
            self.line_ended();
            self.line.len = 0;
            self.line.kept.clear();
        }
        Ok(())
    }

    fn line_ended(&mut self) {
        let whole = self.line.len <= KEPT;
        let text = self.line.text();
        self.state = match self.state {
            State::Head {
                started,
                content_length,
                chunked,
            } if text.is_empty() => match (started, chunked, content_length) {
                // Empty lines before a request line are allowed and ignored.
                (false, _, _) => NEW_HEAD,
                (true, true, _) => State::ChunkSize,
                (true, false, 0) => NEW_HEAD,
                (true, false, remaining) => State::Body { remaining },
            },
            State::Head {
                content_length,
                chunked,
                ..
            } => {
                let (mut content_length, mut chunked) = (content_length, chunked);
                if whole {
                    match field(text) {
                        Some((name, value)) if name.eq_ignore_ascii_case(b"content-length") => {
                            content_length = decimal(value).unwrap_or(content_length);
                        }
                        Some((name, value)) if name.eq_ignore_ascii_case(b"transfer-encoding") => {
                            chunked |= value.to_ascii_lowercase().ends_with(b"chunked");
                        }
                        _ => {}
                    }
                }
                State::Head {
                    started: true,
                    content_length,
                    chunked,
                }
            }
            State::ChunkSize => match chunk_size(text) {
                Some(0) => State::Trailers,
                Some(size) => State::ChunkData {
                    remaining: size.saturating_add(2),
                },
                // Not a chunk: the parser refuses the request and ends the connection.
                None => NEW_HEAD,
            },
            State::Trailers if text.is_empty() => NEW_HEAD,
            other => other,
        };
    }
}

/// `name: value`, the value without its surrounding spaces.
fn field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    Some((&line[..colon], line[colon + 1..].trim_ascii()))
}

fn decimal(value: &[u8]) -> Option<u64> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// The size of a chunk-size line (`1a;ext=1`), in hex.
fn chunk_size(line: &[u8]) -> Option<u64> {
    let size = line.split(|&b| b == b';').next()?.trim_ascii();
    u64::from_str_radix(std::str::from_utf8(size).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn followed(parts: &[&[u8]]) -> Result<RequestFraming, LineTooLong> {
        let mut framing = RequestFraming::default();
        for part in parts {
            framing.follow(part)?;
        }
        Ok(framing)
    }

    fn in_a_new_head(framing: &RequestFraming) -> bool {
        matches!(framing.state, State::Head { started: false, .. }) && framing.line.len == 0
    }

    #[test]
    fn a_head_line_is_measured_across_reads_and_ends_at_a_newline() {
        let half = vec![b'x'; MAX_LINE / 2];
        let mut framing = followed(&[b"GET / HTTP/1.1\r\n", &half, &half]).unwrap();
        assert_eq!(framing.line.len, MAX_LINE / 2 * 2);
        assert_eq!(framing.follow(b"xx"), Err(LineTooLong));
    }

    #[test]
    fn a_body_of_its_content_length_is_never_measured() {
        let body = vec![b'a'; 1 << 20];
        let head = format!(
            "POST /api/orders HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let framing = followed(&[head.as_bytes(), &body]).unwrap();
        assert!(in_a_new_head(&framing));
        // In pieces, with the next request's head after it.
        let mut framing = followed(&[head.as_bytes(), &body[..1000]]).unwrap();
        framing.follow(&body[1000..]).unwrap();
        framing.follow(b"GET /healthz HTTP/1.1\r\n").unwrap();
        assert!(matches!(framing.state, State::Head { started: true, .. }));
        let name = vec![b'X'; MAX_LINE + 1];
        assert_eq!(framing.follow(&name), Err(LineTooLong));
    }

    #[test]
    fn a_chunked_body_is_followed_chunk_by_chunk() {
        let data = vec![b'a'; 70_000];
        let framing = followed(&[
            b"POST / HTTP/1.1\r\ntransfer-encoding: Chunked\r\ncontent-length: 5\r\n\r\n",
            format!("{:x};x=1\r\n", data.len()).as_bytes(),
            &data,
            b"\r\n0\r\nTrailer: 1\r\n\r\n",
        ])
        .unwrap();
        assert!(in_a_new_head(&framing));
    }

    #[test]
    fn a_line_of_exactly_the_longest_length_is_allowed() {
        let mut framing = followed(&[b"GET / HTTP/1.1\r\n", &vec![b'x'; MAX_LINE]]).unwrap();
        assert_eq!(framing.follow(b"x"), Err(LineTooLong));
    }

    #[test]
    fn every_chunk_of_a_chunked_body_is_skipped_not_only_the_first() {
        // Each chunk is longer than a line may be and holds no newline.
        let data = vec![b'a'; MAX_LINE + 10];
        let size = format!("{:x}\r\n", data.len());
        let framing = followed(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            size.as_bytes(),
            &data,
            b"\r\n",
            size.as_bytes(),
            &data,
            b"\r\n0\r\n\r\n",
        ])
        .unwrap();
        assert!(in_a_new_head(&framing));
    }

    #[test]
    fn trailers_end_at_their_empty_line_and_frame_nothing() {
        // A trailer named like a framing field does not make the next head a body.
        let mut framing = followed(&[
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
            b"X-Sum: 1\r\nContent-Length: 5\r\n\r\n",
        ])
        .unwrap();
        assert!(in_a_new_head(&framing));
        framing.follow(b"GET / HTTP/1.1\r\n").unwrap();
        assert!(matches!(
            framing.state,
            State::Head {
                started: true,
                content_length: 0,
                chunked: false
            }
        ));
    }

    #[test]
    fn only_transfer_encoding_makes_a_body_chunked() {
        let framing =
            followed(&[b"POST / HTTP/1.1\r\nX-Mode: chunked\r\nContent-Length: 3\r\n\r\n"])
                .unwrap();
        assert!(matches!(framing.state, State::Body { remaining: 3 }));
    }

    #[test]
    fn empty_lines_before_a_request_line_start_no_body() {
        let framing = followed(&[b"\r\n\r\nGET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"]).unwrap();
        assert!(in_a_new_head(&framing));
    }
}
