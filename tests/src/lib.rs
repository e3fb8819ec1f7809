//! Placeholder until the integration tests land.
