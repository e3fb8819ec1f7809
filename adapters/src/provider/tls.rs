//! The rustls config handed to reqwest (`rustls-no-provider`), for the payment provider
//! and the identity provider's key set. Built on the ring provider
//! async-nats already brings, it needs no process-wide provider, whose absence would panic.

use std::sync::Arc;

use rustls::ClientConfig;
use rustls::crypto::{CryptoProvider, ring};
use rustls_platform_verifier::BuilderVerifierExt;

/// `https` verifies with the system's trust store, as reqwest does by default. `http` never
/// uses TLS (redirects are not followed): an empty store lets a machine without CAs run.
///
/// # Errors
/// When `https` and the trust store cannot be loaded.
pub(crate) fn client_config(https: bool) -> Result<ClientConfig, rustls::Error> {
    let provider: Arc<CryptoProvider> = Arc::new(ring::default_provider());
    let builder =
        ClientConfig::builder_with_provider(provider).with_safe_default_protocol_versions()?;
    let mut config = if https {
        builder.with_platform_verifier()?.with_no_client_auth()
    } else {
        builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
