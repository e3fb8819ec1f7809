//! How the document describes the bodies the admin's actions read (strict decoders read
//! them, so these types are described, never built); the answers are described by the
//! application's types that render them (`application::admin`).
#![allow(dead_code)]

use utoipa::ToSchema;

/// What a person found at the provider, in the operation's kind's terms: with
/// `succeeded`, the kind's id member (`providerChargeId` for a capture) is required; with
/// `declined`, refused.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"outcome": "succeeded", "providerChargeId": "ch_3f2a"}))]
pub(crate) struct ResolveRequest {
    outcome: ResolveOutcome,
    /// A capture's: the provider's charge id.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,128}$", min_length = 1, max_length = 128)]
    provider_charge_id: Option<String>,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ResolveOutcome {
    Succeeded,
    Declined,
}

/// Retry and cancel take no body; an empty object is accepted too.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoMembers {}
