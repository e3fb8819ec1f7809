//! The capture's refusal codes and its stored job.

use super::*;

#[test]
fn each_refusal_has_its_documented_code() {
    let codes = CaptureRefusal::ALL
        .iter()
        .map(|r| r.code())
        .collect::<Vec<_>>();
    assert_eq!(codes, ["not_found", "payment_exists", "order_cancelled"]);
}

#[test]
fn a_job_is_stored_as_its_amount_and_currency_and_read_back_checked() {
    let job = CaptureJob {
        amount: Amount::parse(1500).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
    };
    let stored = serde_json::to_string(&job).unwrap();
    assert_eq!(stored, r#"{"amount":1500,"currency":"JPY"}"#);
    assert_eq!(serde_json::from_str::<CaptureJob>(&stored).unwrap(), job);
    // As the migration wrote it for captures accepted before (MariaDB's spacing).
    let migrated = r#"{"amount": 1500, "currency": "JPY"}"#;
    assert_eq!(serde_json::from_str::<CaptureJob>(migrated).unwrap(), job);
    for bad in [
        r#"{"amount":0,"currency":"JPY"}"#,
        r#"{"amount":1,"currency":"jpy"}"#,
    ] {
        assert!(serde_json::from_str::<CaptureJob>(bad).is_err(), "{bad}");
    }
}
