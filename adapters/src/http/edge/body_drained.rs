//! A request whose body is left unread (a route that takes none, a refusal before the
//! body, a body that timed out) closes its connection after the answer, instead of
//! waiting for the rest of a body that may never come.
//!
//! actix-http closes such a connection itself only while the request's payload is still
//! held when the answer is done: once the handler drops it, a chunked body is drained, with
//! no bound. So the payload is shared with [`BodyWatch`], which the answer's body holds
//! ([`KeepBody`]) when the request's body was not read to its end.

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, ready};

use actix_http::body::{BodySize, BoxBody, MessageBody};
use actix_http::error::PayloadError;
use actix_web::HttpMessage;
use actix_web::dev::{Payload, ServiceRequest};
use actix_web::http::header::{CONTENT_LENGTH, HeaderMap, TRANSFER_ENCODING};
use actix_web::web::Bytes;
use futures_util::Stream;

/// A request's body: whether its end was read, and the payload itself, kept alive.
#[derive(Clone)]
pub(crate) struct BodyWatch {
    end: Rc<Cell<bool>>,
    _payload: Rc<RefCell<Payload>>,
}

impl BodyWatch {
    pub(crate) fn reached_end(&self) -> bool {
        self.end.get()
    }
}

/// Watches the body of `request`, if it declares one.
pub(crate) fn watch_body(request: &mut ServiceRequest) -> Option<BodyWatch> {
    if !declares_body(request.headers()) {
        return None;
    }
    let watch = BodyWatch {
        end: Rc::default(),
        _payload: Rc::new(RefCell::new(request.take_payload())),
    };
    request.set_payload(Payload::Stream {
        payload: Box::pin(Watched(watch.clone())),
    });
    Some(watch)
}

/// A chunked body, or a declared length over zero.
fn declares_body(headers: &HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|length| length.trim() != "0")
}

/// What the handler reads: the shared payload, noting its end.
struct Watched(BodyWatch);

impl Stream for Watched {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(Pin::new(&mut *self.0._payload.borrow_mut()).poll_next(cx));
        if item.is_none() {
            self.0.end.set(true);
        }
        Poll::Ready(item)
    }
}

/// An answer's body that keeps the request's payload alive until it is sent.
pub(crate) struct KeepBody {
    body: BoxBody,
    _watch: Option<BodyWatch>,
}

impl KeepBody {
    pub(crate) fn new(body: BoxBody, watch: Option<BodyWatch>) -> Self {
        Self {
            body,
            _watch: watch,
        }
    }
}

impl MessageBody for KeepBody {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}
