//! The HTTP surface: the provider API (`/v1/charges`, `/v1/refunds`) and the test's
//! controls (`/control`, `/control/release`, `/counters`).

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Method, Request, Response, StatusCode};

use crate::controls::Controls;
use crate::ledger::{Outcome, Resource, WorkRequest};
use crate::state::State;

const MAX_BODY: usize = 64 * 1024;

type Answer = Response<Full<Bytes>>;

/// The error that makes hyper close the connection without writing any answer: how a
/// charge call "hangs up" after charging.
#[derive(Debug)]
pub(crate) struct HungUp;

impl std::fmt::Display for HungUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("charged, then hung up on purpose")
    }
}

impl std::error::Error for HungUp {}

/// Fails only with [`HungUp`], when the charge call was told to drop the connection.
pub(crate) async fn handle(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Answer, HungUp> {
    let path = request.uri().path().to_owned();
    let resource = Resource::of_path(&path);
    Ok(match (request.method().clone(), path.as_str()) {
        (Method::POST, _) if let Some(resource) = resource => {
            return create(state, resource, request).await;
        }
        (Method::GET, _) if let Some(resource) = resource => {
            lookup(&state, resource, request.uri().query()).await
        }
        (Method::GET, "/control") => json(StatusCode::OK, &state.controls()),
        (Method::PUT, "/control") => match read_body(request)
            .await
            .and_then(|b| serde_json::from_slice::<Controls>(&b).ok())
        {
            Some(controls) => {
                tracing::info!(?controls, "controls set");
                state.set_controls(controls.clone());
                json(StatusCode::OK, &controls)
            }
            None => error(
                StatusCode::BAD_REQUEST,
                "controls are not valid JSON of the known fields",
            ),
        },
        (Method::POST, "/control/release") => {
            let held = state.release();
            json(StatusCode::OK, &serde_json::json!({ "released": held }))
        }
        (Method::GET, "/counters") => json(StatusCode::OK, &state.counters().await),
        (_, "/v1/charges" | "/v1/refunds" | "/control" | "/control/release" | "/counters") => {
            error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => error(StatusCode::NOT_FOUND, "no such path"),
    })
}

/// Validated here, then carried out in a task of its own: a client that hangs up (a
/// timeout) does not stop a charge or refund under way, as with a real provider.
async fn create(
    state: Arc<State>,
    resource: Resource,
    request: Request<Incoming>,
) -> Result<Answer, HungUp> {
    state.count_create_call(resource);
    if let Some(traceparent) = request.headers().get("traceparent") {
        state.record_traceparent(traceparent.as_bytes());
    }
    let key = request
        .headers()
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty())
        .map(str::to_owned);
    let Some(key) = key else {
        return Ok(error(
            StatusCode::BAD_REQUEST,
            "Idempotency-Key is required",
        ));
    };
    let Some(input) = read_body(request)
        .await
        .and_then(|body| WorkRequest::parse(resource, &body))
    else {
        return Ok(error(StatusCode::BAD_REQUEST, resource.expected_body()));
    };
    let task = tokio::spawn(async move { carry_out(&state, resource, &key, &input).await });
    task.await
        .unwrap_or_else(|_| Ok(error(StatusCode::INTERNAL_SERVER_ERROR, "task failed")))
}

/// Under the plan taken as it starts: delay, `503`, charge or refund (once per key), hold,
/// hang up.
async fn carry_out(
    state: &State,
    resource: Resource,
    key: &str,
    input: &WorkRequest,
) -> Result<Answer, HungUp> {
    let _in_flight = state.in_flight();
    let (plan, release) = state.take_plan();
    if !plan.delay.is_zero() {
        tokio::time::sleep(plan.delay).await;
    }
    if plan.fail {
        return Ok(error(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable (told to fail)",
        ));
    }
    let outcome = state
        .ledger
        .lock()
        .await
        .create(resource, key, input, plan.decline)
        .await;
    let made = match outcome {
        Ok(Outcome::New(made)) => {
            tracing::info!(id = %made.id, succeeded = made.succeeded, "made");
            made
        }
        Ok(Outcome::Existing(made)) => made,
        Ok(Outcome::Conflict) => {
            return Ok(error(
                StatusCode::CONFLICT,
                "this Idempotency-Key was used with another amount, currency or charge",
            ));
        }
        Ok(Outcome::NoSuchCharge) => {
            return Ok(error(
                StatusCode::BAD_REQUEST,
                "no succeeded charge of this id in this currency",
            ));
        }
        Err(e) => {
            tracing::error!(error = %e, "state file not written");
            return Ok(error(StatusCode::INTERNAL_SERVER_ERROR, "state not saved"));
        }
    };
    if plan.hold {
        state.hold(release).await;
    }
    if plan.drop_after_charge {
        tracing::info!(id = %made.id, "hanging up without an answer");
        return Err(HungUp);
    }
    Ok(json(
        StatusCode::CREATED,
        &state.controls().misstated(made.answer()),
    ))
}

async fn lookup(state: &State, resource: Resource, query: Option<&str>) -> Answer {
    state.lookup_call();
    if state.down() {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable (told to fail)",
        );
    }
    let key = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "idempotency_key")
        .map(|(_, value)| value.into_owned());
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return error(StatusCode::BAD_REQUEST, "idempotency_key is required");
    };
    match state.ledger.lock().await.get(resource, &key) {
        Some(made) => json(StatusCode::OK, &state.controls().misstated(made.answer())),
        None => error(StatusCode::NOT_FOUND, "nothing under this key"),
    }
}

/// The whole body, up to [`MAX_BODY`]; `None` when longer or broken.
async fn read_body(request: Request<Incoming>) -> Option<Bytes> {
    let collected = Limited::new(request.into_body(), MAX_BODY).collect().await;
    collected.ok().map(http_body_util::Collected::to_bytes)
}

fn json(status: StatusCode, body: &impl serde::Serialize) -> Answer {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut answer = Response::new(Full::new(Bytes::from(bytes)));
    *answer.status_mut() = status;
    answer.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    answer
}

fn error(status: StatusCode, message: &str) -> Answer {
    json(status, &serde_json::json!({ "error": message }))
}
