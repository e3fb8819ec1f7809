//! `decode_new_order` on arbitrary bytes: it never panics; what it refuses comes with at
//! least one and at most 16 violations; what it accepts is a body that a lax JSON parser
//! reads as the same three values, and its re-encoding decodes to the same order with the
//! same fingerprint.
#![no_main]

use adapters::decode_new_order;
use domain::{Fingerprinted, NewOrder, Operation};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fn encode(order: &NewOrder) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "clientOrderRef": order.client_order_ref.as_str(),
        "sku": order.sku.as_str(),
        "quantity": order.quantity.get(),
    }))
    .expect("a map of strings and a number serializes")
}

fuzz_target!(|data: &[u8]| {
    let order = match decode_new_order(data) {
        Ok(order) => order,
        Err(errors) => {
            assert!(!errors.is_empty(), "refused without a reason");
            assert!(errors.len() <= 16, "more than 16 violations: {errors:?}");
            return;
        }
    };

    // The strict decoder accepts only what a lax parser reads as the same values.
    let lax: Value = serde_json::from_slice(data).expect("strictly accepted, laxly refused");
    let members = lax.as_object().expect("accepted a non-object");
    assert_eq!(members.len(), 3, "accepted extra members");
    assert_eq!(members["clientOrderRef"], order.client_order_ref.as_str());
    assert_eq!(members["sku"], order.sku.as_str());
    assert_eq!(members["quantity"], order.quantity.get());

    // Re-encoding names the same order, and so the same request.
    let again = decode_new_order(&encode(&order)).expect("the re-encoding is refused");
    assert_eq!(again, order);
    let operation = Operation::parse("orders.create.v1").expect("a valid operation name");
    assert_eq!(again.fingerprint(&operation), order.fingerprint(&operation));
});
