//! The rustls config handed to reqwest (`rustls-no-provider`). Built on the ring provider
//! async-nats already brings, it needs no process-wide provider, whose absence would panic.

use std::sync::Arc;

use rustls::ClientConfig;
use rustls::crypto::{CryptoProvider, ring};
use rustls_platform_verifier::BuilderVerifierExt;

use super::ProviderConfigError;

/// `https` verifies with the system's trust store, as reqwest does by default. `http` never
/// uses TLS (redirects are not followed): an empty store lets a machine without CAs run.
///
/// # Errors
/// [`ProviderConfigError::Tls`] when `https` and the trust store cannot be loaded.
pub(crate) fn client_config(https: bool) -> Result<ClientConfig, ProviderConfigError> {
    let provider: Arc<CryptoProvider> = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(ProviderConfigError::Tls)?;
    let mut config = if https {
        builder
            .with_platform_verifier()
            .map_err(ProviderConfigError::Tls)?
            .with_no_client_auth()
    } else {
        builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
