//! What the client refuses to be built with, and a provider that is not there.

use std::time::Duration;

use adapters::provider::{HttpPaymentProvider, ProviderConfigError};
use application::ErrorChain;
use application::ports::{PaymentProvider, ProviderAnswer};

use crate::{TIMEOUT, capture, new_key};

#[test]
fn only_http_and_https_urls_are_accepted() {
    for url in ["ftp://127.0.0.1/", "tls://127.0.0.1:4222", "file:///tmp/p"] {
        assert!(
            matches!(
                HttpPaymentProvider::new(url, TIMEOUT),
                Err(ProviderConfigError::Scheme(_))
            ),
            "{url}"
        );
    }
    assert!(HttpPaymentProvider::new("127.0.0.1:9", TIMEOUT).is_err());
    assert!(matches!(
        HttpPaymentProvider::new("http://127.0.0.1:9", Duration::ZERO),
        Err(ProviderConfigError::ZeroTimeout)
    ));
    assert!(HttpPaymentProvider::new("http://127.0.0.1:9/prefix/", TIMEOUT).is_ok());
}

#[tokio::test]
async fn a_provider_that_is_not_listening_is_unknown() {
    // A port bound and never listened on: connecting is refused, and while the socket
    // lives no other process can take the port and answer.
    let held = tokio::net::TcpSocket::new_v4().unwrap();
    held.bind(([127, 0, 0, 1], 0).into()).unwrap();
    let port = held.local_addr().unwrap().port();
    let client = HttpPaymentProvider::new(&format!("http://127.0.0.1:{port}"), TIMEOUT).unwrap();
    let key = new_key();

    let answer = client.charge(&key, &capture(100), "op-1").await;

    assert!(
        matches!(&answer, ProviderAnswer::Unknown(r) if !ErrorChain(r).to_string().contains(&key)),
        "{answer:?}"
    );
    assert!(client.lookup(&key, &capture(100)).await.is_err());
}
