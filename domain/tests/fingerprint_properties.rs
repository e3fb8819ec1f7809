//! Properties of the request fingerprint (`docs/http-api.md#request-fingerprints`), for any
//! validated input: it is the SHA-256 of the canonical lines, and any change to a validated
//! value (the operation, `clientOrderRef`, `sku`, `quantity`, the rule version) changes it,
//! including a shift of characters from one field into the next.
//!
//! Member order and whitespace cannot reach it (it is computed from validated values); that
//! half, from bodies to fingerprints, is proven in `adapters/tests/decoder_properties.rs`.
//! Failing cases are saved under `domain/proptest-regressions/` (committed).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

use domain::{
    ClientOrderRef, Fingerprint, FingerprintVersion, Fingerprinted, NewOrder, Operation, Quantity,
    Sku,
};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

/// The default budget (256 cases, or `PROPTEST_CASES`), failures saved to
/// `proptest-regressions/fingerprint_properties.txt` in this crate (proptest's default place
/// is found from `src/` only: for a file in `tests/` it warns and writes beside the file).
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/fingerprint_properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}
use sha2::{Digest, Sha256};

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// 1..=64 characters of the alphabet, at the bounds a quarter of the time each.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![2 => 1..=64usize, 1 => Just(1usize), 1 => Just(64usize)].prop_flat_map(|len| {
        proptest::collection::vec(select(ALPHABET), len)
            .prop_map(|bytes| bytes.into_iter().map(char::from).collect())
    })
}

fn quantity() -> impl Strategy<Value = u8> {
    prop_oneof![1 => Just(1u8), 1 => Just(100u8), 4 => 1..=100u8]
}

/// Operation names: dot-separated segments of `a-z 0-9 _`, at most 64 bytes.
fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![
        1 => Just("orders.create.v1".to_owned()),
        3 => proptest::collection::vec("[a-z0-9_]{1,12}", 1..5).prop_map(|s| s.join(".")),
    ]
    .prop_filter_map("at most 64 bytes", |name| Operation::parse(&name).ok())
}

fn new_order(client_order_ref: &str, sku: &str, quantity: u8) -> NewOrder {
    NewOrder {
        client_order_ref: ClientOrderRef::parse(client_order_ref).unwrap(),
        sku: Sku::parse(sku).unwrap(),
        quantity: Quantity::parse(i64::from(quantity)).unwrap(),
    }
}

fn order() -> impl Strategy<Value = NewOrder> {
    (text(), text(), quantity()).prop_map(|(r, s, q)| new_order(&r, &s, q))
}

/// One validated value of an order, or the operation, replaced by another valid one.
#[derive(Debug, Clone)]
enum Change {
    ClientOrderRef(String),
    Sku(String),
    Quantity(u8),
    Operation(Operation),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        text().prop_map(Change::ClientOrderRef),
        text().prop_map(Change::Sku),
        quantity().prop_map(Change::Quantity),
        operation().prop_map(Change::Operation),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_fingerprint_of_any_order_is_the_sha256_of_its_canonical_lines_under_rule_version_1(
        order in order(),
        operation in operation(),
    ) {
        let canonical = format!(
            "{}\n1\n{}\n{}\n{}\n",
            operation.as_str(),
            order.client_order_ref.as_str(),
            order.sku.as_str(),
            order.quantity.get(),
        );
        let fingerprint = order.fingerprint(&operation);
        prop_assert_eq!(fingerprint.version(), FingerprintVersion(1));
        prop_assert_eq!(fingerprint.hash(), &<[u8; 32]>::from(Sha256::digest(canonical)));
    }

    #[test]
    fn the_same_values_parsed_twice_give_the_same_fingerprint(
        (r, s, q) in (text(), text(), quantity()),
        operation in operation(),
    ) {
        let a = new_order(&r, &s, q).fingerprint(&operation);
        let b = new_order(&r, &s, q).fingerprint(&Operation::parse(operation.as_str()).unwrap());
        prop_assert_eq!(a, b);
    }

    #[test]
    fn any_change_to_a_validated_value_or_the_operation_changes_the_fingerprint(
        order in order(),
        operation in operation(),
        change in change(),
    ) {
        let (mut changed, mut changed_operation) = (order.clone(), operation.clone());
        match change {
            Change::ClientOrderRef(r) => changed.client_order_ref = ClientOrderRef::parse(&r).unwrap(),
            Change::Sku(s) => changed.sku = Sku::parse(&s).unwrap(),
            Change::Quantity(q) => changed.quantity = Quantity::parse(i64::from(q)).unwrap(),
            Change::Operation(o) => changed_operation = o,
        }
        prop_assume!(changed != order || changed_operation != operation);
        prop_assert_ne!(
            order.fingerprint(&operation),
            changed.fingerprint(&changed_operation)
        );
    }

    #[test]
    fn moving_characters_between_client_order_ref_and_sku_changes_the_fingerprint(
        joined in text().prop_filter("two characters at least", |t| t.len() >= 2),
        at in any::<prop::sample::Index>(),
        by in any::<prop::sample::Index>(),
        quantity in quantity(),
    ) {
        // Same concatenation, another boundary: the newline between fields tells them apart.
        let first = 1 + at.index(joined.len() - 1);
        let second = 1 + by.index(joined.len() - 1);
        prop_assume!(first != second);
        let split = |i: usize| new_order(&joined[..i], &joined[i..], quantity);
        let operation = Operation::parse("orders.create.v1").unwrap();
        prop_assert_ne!(
            split(first).fingerprint(&operation),
            split(second).fingerprint(&operation)
        );
    }

    #[test]
    fn moving_digits_between_sku_and_quantity_changes_the_fingerprint(
        sku in text().prop_filter("room for a digit", |t| t.len() < 64),
        quantity in (11..=99u8).prop_filter("no zero digit", |q| q % 10 != 0),
    ) {
        // `SKU` + `12` against `SKU1` + `2`: the same characters in another field.
        let digits = quantity.to_string();
        let (moved, rest) = digits.split_at(1);
        let operation = Operation::parse("orders.create.v1").unwrap();
        let a = new_order("R", &sku, quantity).fingerprint(&operation);
        let b = new_order("R", &format!("{sku}{moved}"), rest.parse().unwrap())
            .fingerprint(&operation);
        prop_assert_ne!(a, b);
    }

    #[test]
    fn different_field_lists_without_newlines_or_another_rule_version_never_share_a_fingerprint(
        a in proptest::collection::vec("[^\n]{0,8}", 0..5),
        b in proptest::collection::vec("[^\n]{0,8}", 0..5),
        (va, vb) in (0..3u16, 0..3u16),
    ) {
        prop_assume!(a != b || va != vb);
        let operation = Operation::parse("orders.create.v1").unwrap();
        // The hashes: the version is also carried beside the hash, so compare only these.
        let first = Fingerprint::compute(&operation, FingerprintVersion(va), &a);
        let second = Fingerprint::compute(&operation, FingerprintVersion(vb), &b);
        prop_assert_ne!(first.hash(), second.hash());
    }
}
