//! Digests of the bodies a history keeps instead of the bodies themselves: a history is
//! written out when a check fails, and must not carry what the requests said.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, in lowercase hex.
#[must_use]
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The digest of a request body as the service's fingerprint sees it: a JSON body with
/// its members sorted and no whitespace, so the same request written differently is the
/// same request (`docs/http-api.md`); a body that is not JSON, byte for byte.
#[must_use]
pub(super) fn request_digest(body: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(value) => {
            let mut canonical = String::new();
            write_canonical(&value, &mut canonical);
            sha256_hex(canonical.as_bytes())
        }
        Err(_) => sha256_hex(body),
    }
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (name, member)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(name.clone()).to_string());
                out.push(':');
                write_canonical(member, out);
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_request_written_differently_has_one_digest() {
        let a = br#"{"clientOrderRef":"R","sku":"S","quantity":2}"#;
        let b = br#" { "quantity" : 2, "sku":"S",  "clientOrderRef":"R" } "#;
        assert_eq!(request_digest(a), request_digest(b));
        assert_ne!(
            request_digest(a),
            request_digest(br#"{"clientOrderRef":"R","sku":"S","quantity":3}"#)
        );
        assert_eq!(sha256_hex(b"").len(), 64);
    }
}
