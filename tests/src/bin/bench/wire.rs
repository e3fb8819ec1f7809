//! The load generator's HTTP/1.1 client: one keep-alive connection, one request in flight,
//! requests written in one piece, response heads parsed by `httparse`, on the same tokio
//! runtime shape as the ceiling's database client. A general client (redirects, pools,
//! header maps, a thread per connection) spends more CPU per request than the server it
//! measures on a two-core machine, so the generator keeps to what these requests need.

use std::io::{self, Write};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What the benchmark needs from a response.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) replayed: bool,
}

/// One connection to the server.
#[derive(Debug)]
pub(crate) struct Connection {
    address: String,
    stream: Option<TcpStream>,
    request: Vec<u8>,
    response: Vec<u8>,
}

impl Connection {
    /// A connection to `base_url` (`http://host:port`), opened on first use.
    pub(crate) fn new(base_url: &str) -> Self {
        Self {
            address: base_url.trim_start_matches("http://").to_owned(),
            stream: None,
            request: Vec::with_capacity(1024),
            response: Vec::with_capacity(4096),
        }
    }

    /// An idempotent `POST` to `path`; reconnects once if a kept-alive connection was
    /// closed.
    pub(crate) async fn post(
        &mut self,
        path: &str,
        token: &str,
        key: &str,
        body: &str,
    ) -> io::Result<Answer> {
        self.request.clear();
        write!(
            self.request,
            "POST {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             Idempotency-Key: {key}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        )?;
        match self.exchange().await {
            Ok(answer) => Ok(answer),
            Err(_) => {
                self.stream = None;
                self.exchange().await
            }
        }
    }

    async fn exchange(&mut self) -> io::Result<Answer> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(&self.address).await?;
            stream.set_nodelay(true)?;
            self.stream = Some(stream);
        }
        let stream = self.stream.as_mut().ok_or(io::ErrorKind::NotConnected)?;
        stream.write_all(&self.request).await?;
        self.response.clear();
        let mut chunk = [0u8; 4096];
        loop {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.response.extend_from_slice(&chunk[..n]);
            if let Some((answer, total)) = parse(&self.response)?
                && self.response.len() >= total
            {
                return Ok(answer);
            }
        }
    }
}

/// The answer and the response's full length, once its head is complete.
fn parse(bytes: &[u8]) -> io::Result<Option<(Answer, usize)>> {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(bytes) {
        Ok(httparse::Status::Complete(head_len)) => head_len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(io::ErrorKind::InvalidData.into()),
    };
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    };
    let length = header("content-length")
        .and_then(|v| std::str::from_utf8(v).ok()?.parse::<usize>().ok())
        .unwrap_or(0);
    let answer = Answer {
        status: response.code.unwrap_or(0),
        replayed: header("idempotent-replayed").is_some(),
    };
    Ok(Some((answer, head_len + length)))
}
