//! The wire shapes the document shares between routes: the replay marker and the probes'
//! answers. Each operation's own shapes are beside its route.

use utoipa::ToSchema;

/// The `Idempotent-Replayed` header of a replay.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(crate) enum Replayed {
    /// The answer is the stored one.
    True,
}

/// `GET /healthz`.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"status": "ok"}))]
#[allow(dead_code)] // described, never built: the probe answers a fixed text
pub(crate) struct Health {
    status: HealthState,
}

/// The process serves.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(crate) enum HealthState {
    /// Always.
    Ok,
}

/// `GET /readyz`.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"status": "ready"}))]
#[allow(dead_code)] // described, never built: the probe answers a fixed text
pub(crate) struct Readiness {
    status: ReadinessState,
}

/// Whether the database answers now.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // described, never built
pub(crate) enum ReadinessState {
    /// `200`: the database answered a trivial query.
    Ready,
    /// `503`: it did not.
    Unavailable,
}
