//! What a request meant, reduced to 32 bytes that do not depend on JSON spelling.

use sha2::{Digest, Sha256};

use crate::{NewOrder, Operation};

/// Bumped when canonical fields change, so hashes of two rules are never compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FingerprintVersion(pub u16);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    version: FingerprintVersion,
    hash: [u8; 32],
}

/// Every field must be free of `\n`; validated token types guarantee it.
pub trait Fingerprinted {
    const RULE_VERSION: FingerprintVersion;

    /// In a fixed order, each in its canonical text form.
    fn fingerprint_fields(&self) -> Vec<String>;

    fn fingerprint(&self, operation: &Operation) -> Fingerprint {
        let fields = self.fingerprint_fields();
        Fingerprint::compute(operation, Self::RULE_VERSION, &fields)
    }
}

impl Fingerprint {
    #[must_use]
    pub fn compute<S: AsRef<str>>(
        operation: &Operation,
        version: FingerprintVersion,
        fields: &[S],
    ) -> Self {
        let hash = Sha256::digest(canonical_bytes(operation, version, fields)).into();
        Self { version, hash }
    }

    #[must_use]
    pub fn from_parts(version: FingerprintVersion, hash: [u8; 32]) -> Self {
        Self { version, hash }
    }

    #[must_use]
    pub fn version(&self) -> FingerprintVersion {
        self.version
    }

    #[must_use]
    pub fn hash(&self) -> &[u8; 32] {
        &self.hash
    }

    /// The hash in lowercase hex, as `docs/http-api.md#request-fingerprints` prints its vectors.
    #[must_use]
    pub fn to_hex(&self) -> String {
        self.hash.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// `operation\nversion\nfield...\n` (`docs/http-api.md#request-fingerprints`).
#[must_use]
pub fn canonical_bytes<S: AsRef<str>>(
    operation: &Operation,
    version: FingerprintVersion,
    fields: &[S],
) -> Vec<u8> {
    let version = version.0.to_string();
    let mut out = Vec::new();
    let parts = [operation.as_str(), version.as_str()]
        .into_iter()
        .chain(fields.iter().map(AsRef::as_ref));
    for part in parts {
        out.extend_from_slice(part.as_bytes());
        out.push(b'\n');
    }
    out
}

impl Fingerprinted for NewOrder {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    fn fingerprint_fields(&self) -> Vec<String> {
        vec![
            self.client_order_ref.as_str().to_owned(),
            self.sku.as_str().to_owned(),
            self.quantity.get().to_string(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClientOrderRef, Quantity, Sku};

    fn order(client_order_ref: &str, sku: &str, quantity: i64) -> NewOrder {
        NewOrder {
            client_order_ref: ClientOrderRef::parse(client_order_ref).unwrap(),
            sku: Sku::parse(sku).unwrap(),
            quantity: Quantity::parse(quantity).unwrap(),
        }
    }

    fn create_v1() -> Operation {
        Operation::parse("orders.create.v1").unwrap()
    }

    #[test]
    fn the_canonical_bytes_are_values_each_followed_by_a_newline() {
        let new_order = order("REF-1", "SKU-1", 2);
        let bytes = canonical_bytes(
            &create_v1(),
            NewOrder::RULE_VERSION,
            &new_order.fingerprint_fields(),
        );
        assert_eq!(bytes, b"orders.create.v1\n1\nREF-1\nSKU-1\n2\n");
    }

    #[test]
    fn the_contract_test_vectors_hold() {
        let vectors = [
            (
                order("REF-1", "SKU-1", 2),
                "5311db6e09fe79ba64baec3b17187d50880e51f324ecef99d3964361d083f458",
            ),
            (
                order("ref-1", "SKU-1", 2),
                "e7e740ff609dacffcb081ed60f8d0843f8f485e8dc693215b98ad59f89041ecc",
            ),
            (
                order("REF-1", "SKU-1", 100),
                "12212c564cf7b4e4af5934e8046c1e883d855d4f35ba0aeef1e6e5fabfa4a3e5",
            ),
        ];
        for (input, expected) in vectors {
            let fingerprint = input.fingerprint(&create_v1());
            assert_eq!(fingerprint.to_hex(), expected, "{input:?}");
            assert_eq!(fingerprint.version(), FingerprintVersion(1));
        }
    }

    #[test]
    fn another_operation_never_shares_a_fingerprint() {
        let input = order("REF-1", "SKU-1", 2);
        let other = Operation::parse("orders.create.v2").unwrap();
        assert_ne!(input.fingerprint(&create_v1()), input.fingerprint(&other));
    }
}
