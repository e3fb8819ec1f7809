//! The strict `POST /api/orders` body decoder, for any bytes.

use adapters::http::decode_new_order;
use domain::{Fingerprinted, NewOrder, Operation};
use proptest::prelude::*;
use proptest::sample::select;

use super::{config, token_text, valid_len};

const NAMES: [&str; 3] = ["clientOrderRef", "sku", "quantity"];

/// The three validated values, as plain data (the domain types come from decoding).
#[derive(Debug, Clone)]
struct Values {
    client_order_ref: String,
    sku: String,
    quantity: u8,
}

fn values() -> impl Strategy<Value = Values> {
    (
        token_text(valid_len(64)),
        token_text(valid_len(64)),
        prop_oneof![1 => Just(1u8), 1 => Just(100u8), 4 => 1..=100u8],
    )
        .prop_map(|(client_order_ref, sku, quantity)| Values {
            client_order_ref,
            sku,
            quantity,
        })
}

/// How one body spells its members: an order, whitespace between tokens, and which
/// characters of names and values are written as `\uXXXX` escapes (lower or upper hex, a
/// quarter of them).
#[derive(Debug, Clone)]
struct Spelling {
    order: Vec<usize>,
    whitespace: Vec<&'static str>,
    escapes: Vec<u8>,
}

fn spelling() -> impl Strategy<Value = Spelling> {
    (
        Just(vec![0usize, 1, 2]).prop_shuffle(),
        proptest::collection::vec(select(&["", " ", "\t", "\n", "\r\n", "  \t "][..]), 16),
        // 1: `\u` + lower hex, 2: upper hex, else literal; cycled over the characters.
        proptest::collection::vec(0..8u8, 64),
    )
        .prop_map(|(order, whitespace, escapes)| Spelling {
            order,
            whitespace,
            escapes,
        })
}

/// A JSON string literal of `text`, escaping the characters `escapes` selects.
fn json_string(text: &str, escapes: &mut impl Iterator<Item = u8>) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match escapes.next().unwrap_or(0) {
            1 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            2 => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An object of `members` (name, JSON value text) spelled as `spelling` says.
fn json_object(members: &[(String, String)], spelling: &Spelling) -> String {
    let mut ws = spelling.whitespace.iter().cycle();
    let mut escapes = spelling.escapes.iter().copied().cycle();
    let mut out = format!("{}{{", ws.next().unwrap());
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let name = json_string(name, &mut escapes);
        out.push_str(&format!(
            "{}{name}{}:{}{value}{}",
            ws.next().unwrap(),
            ws.next().unwrap(),
            ws.next().unwrap(),
            ws.next().unwrap()
        ));
    }
    out.push_str(&format!("}}{}", ws.next().unwrap()));
    out
}

/// The members of `values` in `spelling`'s order, text values escaped as it says.
fn members(values: &Values, spelling: &Spelling) -> Vec<(String, String)> {
    let mut escapes = spelling.escapes.iter().rev().copied().cycle();
    let all = [
        json_string(&values.client_order_ref, &mut escapes),
        json_string(&values.sku, &mut escapes),
        values.quantity.to_string(),
    ];
    spelling
        .order
        .iter()
        .map(|&i| (NAMES[i].to_owned(), all[i].clone()))
        .collect()
}

fn body(values: &Values, spelling: &Spelling) -> String {
    json_object(&members(values, spelling), spelling)
}

/// The canonical JSON of a decoded order, as a client library would write it.
fn reencode(order: &NewOrder) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "clientOrderRef": order.client_order_ref.as_str(),
        "sku": order.sku.as_str(),
        "quantity": order.quantity.get(),
    }))
    .unwrap()
}

fn create_v1() -> Operation {
    Operation::parse("orders.create.v1").unwrap()
}

/// What an accepted body must satisfy: its re-encoding decodes to the same order.
fn assert_round_trip(order: &NewOrder) -> Result<(), TestCaseError> {
    let again = decode_new_order(&reencode(order));
    prop_assert_eq!(again.as_ref(), Ok(order));
    Ok(())
}

/// What a refusal must satisfy: at least one violation, at most 16
/// (`docs/http-api.md#request-bodies`).
fn assert_refusal_is_listed(errors: &[adapters::http::FieldError]) -> Result<(), TestCaseError> {
    prop_assert!(!errors.is_empty());
    prop_assert!(errors.len() <= 16, "{} violations", errors.len());
    Ok(())
}

/// Values `clientOrderRef` and `sku` refuse: wrong types, `null`, empty, too long, bad
/// characters (also when escaped).
const BAD_TEXT: &[&str] = &[
    "null",
    "true",
    "1",
    "[]",
    "{}",
    "\"\"",
    "\" REF\"",
    "\"\\u00e9\"",
    "\"a\\nb\"",
    "\"a\\u0020b\"",
    "\"0123456789012345678901234567890123456789012345678901234567890123456789\"",
];

/// Values `quantity` refuses: wrong types, `null`, floats, out of range.
const BAD_QUANTITY: &[&str] = &[
    "null",
    "true",
    "\"1\"",
    "1.0",
    "1e0",
    "0",
    "-0",
    "101",
    "-1",
    "18446744073709551616",
    "[]",
    "{}",
];

fn bad_value(member: usize) -> impl Strategy<Value = &'static str> {
    select(if member == 2 { BAD_QUANTITY } else { BAD_TEXT })
}

/// JSON-ish pieces: structure, the member names (plain and escaped), values at and past
/// the bounds, broken escapes and strings.
const JSON_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "\"",
    "\\",
    "\"clientOrderRef\"",
    "\"sku\"",
    "\"quantity\"",
    "\"\\u0071uantity\"",
    "\"s\\u006bu\"",
    "\"client\\u004frderRef\"",
    "\"REF-1\"",
    "\"SKU-1\"",
    "\"a\"",
    "1",
    "2",
    "100",
    "101",
    "0",
    "-0",
    "-1",
    "1.0",
    "1e0",
    "1E2",
    "true",
    "false",
    "null",
    "\"\\ud800\"",
    "\"\\ud83d\\ude00\"",
    "\\u",
    "\"\\u00\"",
    "é",
    "\u{feff}",
    "\0",
    "18446744073709551616",
    "9223372036854775808",
    "\"x\"",
];

fn json_ish() -> impl Strategy<Value = String> {
    proptest::collection::vec(select(JSON_PIECES), 0..24).prop_map(|pieces| pieces.concat())
}

/// One defect applied to a valid body.
#[derive(Debug, Clone)]
enum Defect {
    /// A member left out.
    Drop(usize),
    /// A member repeated, with a value of its own.
    Repeat(usize, String),
    /// A member whose name is not one of the three.
    Unknown(String),
    /// A member's value replaced by one it does not accept.
    BadValue(usize, &'static str),
}

fn defect() -> impl Strategy<Value = Defect> {
    let unknown_name = prop_oneof![
        select(
            &[
                "tenantId",
                "Quantity",
                "sku ",
                "clientorderref",
                "",
                "a~b/c",
                "\u{7f}"
            ][..]
        )
        .prop_map(str::to_owned),
        any::<String>(),
    ]
    .prop_filter("not a known name", |name| !NAMES.contains(&name.as_str()));
    prop_oneof![
        (0..3usize).prop_map(Defect::Drop),
        (0..3usize, select(&["1", "\"R\"", "null"][..]))
            .prop_map(|(i, v)| Defect::Repeat(i, v.to_owned())),
        unknown_name.prop_map(Defect::Unknown),
        (0..3usize)
            .prop_flat_map(|i| (Just(i), bad_value(i)))
            .prop_map(|(i, v)| Defect::BadValue(i, v)),
    ]
}

fn apply(members: &mut Vec<(String, String)>, defect: &Defect) {
    match defect {
        Defect::Drop(i) => members.retain(|(name, _)| name != NAMES[*i]),
        // Twice, so the name is repeated even when an earlier defect dropped it.
        Defect::Repeat(i, value) => {
            let name = NAMES[*i].to_owned();
            members.push((name.clone(), value.clone()));
            members.push((name, value.clone()));
        }
        Defect::Unknown(name) => members.push((name.clone(), "1".to_owned())),
        Defect::BadValue(i, value) => {
            let name = NAMES[*i];
            for member in members.iter_mut().filter(|(n, _)| n == name) {
                member.1 = (*value).to_owned();
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_bytes_never_panic_and_a_refusal_lists_one_to_sixteen_violations(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        match decode_new_order(&bytes) {
            Ok(order) => assert_round_trip(&order)?,
            Err(errors) => assert_refusal_is_listed(&errors)?,
        }
    }

    #[test]
    fn any_json_ish_text_never_panics_and_what_it_accepts_round_trips(text in json_ish()) {
        match decode_new_order(text.as_bytes()) {
            Ok(order) => assert_round_trip(&order)?,
            Err(errors) => assert_refusal_is_listed(&errors)?,
        }
    }

    #[test]
    fn any_valid_order_in_any_member_order_whitespace_and_escaping_decodes_to_itself_and_round_trips(
        values in values(),
        spelling in spelling(),
    ) {
        let body = body(&values, &spelling);
        let order = decode_new_order(body.as_bytes());
        let order = match order {
            Ok(order) => order,
            Err(errors) => return Err(TestCaseError::fail(format!("{body}: {errors:?}"))),
        };
        prop_assert_eq!(order.client_order_ref.as_str(), values.client_order_ref.as_str());
        prop_assert_eq!(order.sku.as_str(), values.sku.as_str());
        prop_assert_eq!(order.quantity.get(), values.quantity);
        assert_round_trip(&order)?;
    }

    #[test]
    fn two_bodies_differing_only_in_member_order_whitespace_and_escaping_have_one_fingerprint(
        values in values(),
        first in spelling(),
        second in spelling(),
    ) {
        let a = decode_new_order(body(&values, &first).as_bytes()).unwrap();
        let b = decode_new_order(body(&values, &second).as_bytes()).unwrap();
        prop_assert_eq!(a.fingerprint(&create_v1()), b.fingerprint(&create_v1()));
    }

    #[test]
    fn a_valid_body_with_any_missing_repeated_unknown_or_bad_member_is_refused(
        values in values(),
        spelling in spelling(),
        defects in proptest::collection::vec(defect(), 1..4),
    ) {
        let mut members = members(&values, &spelling);
        for defect in &defects {
            apply(&mut members, defect);
        }
        let body = json_object(&members, &spelling);
        match decode_new_order(body.as_bytes()) {
            Ok(order) => {
                return Err(TestCaseError::fail(format!("accepted {body:?} as {order:?}")));
            }
            Err(errors) => assert_refusal_is_listed(&errors)?,
        }
    }

    #[test]
    fn a_member_name_repeated_under_an_escaped_spelling_is_refused(
        values in values(),
        spelling in spelling(),
        repeated in 0..3usize,
        escape_at in any::<prop::sample::Index>(),
    ) {
        // Same name, different bytes: `"\u0071uantity"` repeats `"quantity"`.
        let name = NAMES[repeated];
        let at = escape_at.index(name.len());
        let escaped: String = name
            .char_indices()
            .map(|(i, c)| if i == at { format!("\\u{:04x}", u32::from(c)) } else { c.to_string() })
            .collect();
        let members = members(&values, &spelling);
        let value = members.iter().find(|(n, _)| n == name).unwrap().1.clone();
        let plain = json_object(&members, &spelling);
        let body = format!(
            "{},\"{escaped}\":{value}}}",
            plain.trim_end().strip_suffix('}').unwrap()
        );
        assert_refusal_is_listed(&decode_new_order(body.as_bytes()).unwrap_err())?;
    }
}
