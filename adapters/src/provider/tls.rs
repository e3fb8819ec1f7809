//! The rustls configuration handed to reqwest (built with `rustls-no-provider`).
//!
//! reqwest would otherwise look for a process-wide crypto provider and panic at build
//! time when none is installed; building the config here, on the ring provider async-nats
//! already brings, needs no global state and cannot panic.

use std::sync::Arc;

use rustls::ClientConfig;
use rustls::crypto::{CryptoProvider, ring};
use rustls_platform_verifier::BuilderVerifierExt;

use super::ProviderConfigError;

/// The config for `https` providers: the system's trust store (the same verifier reqwest
/// uses by default), TLS 1.2 and 1.3, HTTP/1.1 by ALPN.
///
/// For an `http` provider no TLS is ever used (redirects are not followed), so an empty
/// trust store stands in and a machine without CA certificates still runs.
///
/// # Errors
/// [`ProviderConfigError::Tls`] when `https` and the trust store cannot be loaded.
pub(super) fn client_config(https: bool) -> Result<ClientConfig, ProviderConfigError> {
    let provider: Arc<CryptoProvider> = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ProviderConfigError::Tls(e.to_string()))?;
    let mut config = if https {
        builder
            .with_platform_verifier()
            .map_err(|e| ProviderConfigError::Tls(e.to_string()))?
            .with_no_client_auth()
    } else {
        builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
