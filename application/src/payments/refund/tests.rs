use domain::{Currency, Operation};

use super::*;

fn job() -> RefundJob {
    RefundJob {
        charge: "ch_1".to_owned(),
        amount: Amount::parse(500).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
        reason: Reason::parse("damaged").unwrap(),
    }
}

#[test]
fn a_job_is_stored_as_its_members_and_read_back_checked() {
    let stored = serde_json::to_string(&job()).unwrap();
    assert_eq!(
        stored,
        r#"{"charge":"ch_1","amount":500,"currency":"JPY","reason":"damaged"}"#
    );
    assert_eq!(serde_json::from_str::<RefundJob>(&stored).unwrap(), job());
    for bad in [
        r#"{"charge":"ch_1","amount":0,"currency":"JPY","reason":"x"}"#,
        r#"{"charge":"ch_1","amount":1,"currency":"JPY","reason":""}"#,
        r#"{"charge":"ch_1","amount":1,"currency":"JPY"}"#,
    ] {
        assert!(serde_json::from_str::<RefundJob>(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_fingerprint_is_the_order_the_amount_and_the_reason() {
    let request = RefundRequest {
        order: OrderId::new(42),
        amount: Amount::parse(500).unwrap(),
        reason: Reason::parse("damaged").unwrap(),
    };
    let operation = Operation::named(RefundPayment::NAME);
    assert_eq!(
        domain::canonical_bytes(
            &operation,
            RefundRequest::RULE_VERSION,
            &request.fingerprint_fields()
        ),
        b"payments.refund.v1\n1\n42\n500\ndamaged\n"
    );
    // The documented vector (`docs/http-api.md#request-fingerprints`).
    let hash = request.fingerprint(&operation).to_hex();
    assert_eq!(
        hash,
        "86b445a6ad0ac5aeea256ad01a0484ba0cc57a599dea25838a3d1c1215e3cb36"
    );
}

#[test]
fn only_going_over_the_capture_is_stored() {
    let stored: Vec<_> = RefundRefusal::ALL
        .iter()
        .filter(|refusal| refusal.is_stored())
        .collect();
    assert_eq!(stored, [&RefundRefusal::ExceedsCaptured]);
}

#[test]
fn each_refusal_has_its_documented_code() {
    let codes = RefundRefusal::ALL
        .iter()
        .map(|r| r.code())
        .collect::<Vec<_>>();
    assert_eq!(
        codes,
        [
            "not_found",
            "order_not_refundable",
            "refund_exceeds_captured"
        ]
    );
}
