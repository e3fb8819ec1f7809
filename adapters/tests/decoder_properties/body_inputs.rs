//! What the body properties feed the decoder: valid orders spelled every way JSON
//! allows, single defects applied to them, and JSON-ish soup.

use proptest::prelude::*;
use proptest::sample::select;

use super::{token_text, valid_len};

pub(super) const NAMES: [&str; 3] = ["clientOrderRef", "sku", "quantity"];

/// The three validated values, as plain data (the domain types come from decoding).
#[derive(Debug, Clone)]
pub(super) struct Values {
    pub(super) client_order_ref: String,
    pub(super) sku: String,
    pub(super) quantity: u8,
}

pub(super) fn values() -> impl Strategy<Value = Values> {
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
pub(super) struct Spelling {
    order: Vec<usize>,
    whitespace: Vec<&'static str>,
    escapes: Vec<u8>,
}

pub(super) fn spelling() -> impl Strategy<Value = Spelling> {
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
pub(super) fn json_object(members: &[(String, String)], spelling: &Spelling) -> String {
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
pub(super) fn members(values: &Values, spelling: &Spelling) -> Vec<(String, String)> {
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

pub(super) fn body(values: &Values, spelling: &Spelling) -> String {
    json_object(&members(values, spelling), spelling)
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

pub(super) fn json_ish() -> impl Strategy<Value = String> {
    proptest::collection::vec(select(JSON_PIECES), 0..24).prop_map(|pieces| pieces.concat())
}

/// One defect applied to a valid body.
#[derive(Debug, Clone)]
pub(super) enum Defect {
    /// A member left out.
    Drop(usize),
    /// A member repeated, with a value of its own.
    Repeat(usize, String),
    /// A member whose name is not one of the three.
    Unknown(String),
    /// A member's value replaced by one it does not accept.
    BadValue(usize, &'static str),
}

pub(super) fn defect() -> impl Strategy<Value = Defect> {
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

pub(super) fn apply(members: &mut Vec<(String, String)>, defect: &Defect) {
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
