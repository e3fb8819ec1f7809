//! Tokens from an identity provider (`docs/http-api.md#tokens-from-an-identity-provider`):
//! a real key server process and tokens minted by an independent implementation
//! (`tests/jwks/jwks_tool.py`: jwcrypto), against a real server process. Every algorithm,
//! the claims' checks and their edges, rotation without a restart, a flood of unknown
//! keys, and a provider that is down at start.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod claims;
mod keys;
mod outage;
mod support;
