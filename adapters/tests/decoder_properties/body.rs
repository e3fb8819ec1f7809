//! The strict `POST /api/orders` body decoder, for any bytes.

use adapters::decode_new_order;
use domain::{Fingerprinted, NewOrder, Operation};
use proptest::prelude::*;

use super::body_inputs::{
    NAMES, apply, body, defect, json_ish, json_object, members, spelling, values,
};
use super::config;

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
