use super::*;

#[test]
fn a_missing_key_and_an_invalid_key_have_their_own_codes() {
    assert_eq!(
        Problem::for_key(KeyError::Missing).code,
        "idempotency_key_missing"
    );
    for error in [KeyError::Empty, KeyError::TooLong, KeyError::BadCharacter] {
        assert_eq!(Problem::for_key(error).code, "idempotency_key_invalid");
    }
}

#[test]
fn each_outcome_maps_to_its_status_and_code() {
    use application::{CreateRefusal, FailureCause, Outcome, UnknownCause};

    let cases = [
        (Outcome::KeyReused, 422, "idempotency_key_reused", false),
        (Outcome::InProgress, 409, "request_in_progress", true),
        (
            Outcome::Rejected(CreateRefusal::ClientOrderRefConflict),
            409,
            "client_order_ref_conflict",
            false,
        ),
        (
            Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown),
            503,
            "outcome_unknown",
            true,
        ),
        (Outcome::Forbidden, 403, "forbidden", false),
        (
            Outcome::Failed(FailureCause::Aborted),
            500,
            "internal",
            false,
        ),
    ];
    for (outcome, status, code, retry) in cases {
        let problem = Problem::for_outcome(&outcome).unwrap();
        assert_eq!(
            (problem.status, problem.code),
            (status, code),
            "{outcome:?}"
        );
        assert_eq!(problem.retry_after.is_some(), retry, "{outcome:?}");
    }
}

#[test]
fn an_invalid_body_problem_lists_its_violations_as_json() {
    let problem = Problem::invalid_body(&[FieldError {
        pointer: "/quantity".into(),
        reason: "must be a JSON integer",
    }]);
    let json: serde_json::Value = serde_json::from_slice(&problem.to_json()).unwrap();
    assert_eq!(json["status"], 400);
    assert_eq!(json["code"], "invalid_body");
    assert_eq!(json["errors"][0]["pointer"], "/quantity");
    assert!(json.get("retry_after").is_none());
}
