//! `GET /api/operations/{operationId}`: how the path names an operation, and the route's
//! description.

use application::leased::{ReadOperation, StatusBody};
use uuid::Uuid;

use crate::http::route::{GetDoc, GetRoute, PathIds, PathParameter};

impl GetRoute for ReadOperation {
    const PATH: &'static str = "/api/operations/{operation_id}";
    type Answer = StatusBody<'static>;

    fn parse_id(path: &PathIds<'_>) -> Option<Uuid> {
        parse_operation_id(path.get("operation_id")?)
    }

    fn describe() -> GetDoc {
        GetDoc {
            path: "/api/operations/{operationId}",
            operation_id: "getOperation",
            tag: "payments",
            summary: "Read where a payment capture stands",
            description: "Another tenant's operation, and an id that is not a hyphenated \
                UUID, are `404` alike. A `pending` operation carries `Retry-After`: poll \
                again then.",
            id: PathParameter {
                name: "operationId",
                description: "The `operationId` of the capture's `202` (the end of its \
                    `Location`).",
                example: "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21",
            },
            answer: "The operation; `payment` is `null` until it succeeded.",
            poll_again: Some("Seconds before polling again; sent while `pending`."),
        }
    }
}

/// A hyphenated UUID, in either case: the form the `Location` gives. `None` names nothing.
#[must_use]
pub fn parse_operation_id(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok()
}

#[cfg(test)]
mod tests {
    use application::TenantRead;
    use application::leased::Members;
    use application::ports::OperationView;
    use chrono::DateTime;
    use domain::{OperationState as State, OrderId};

    use super::*;

    #[test]
    fn only_hyphenated_uuids_name_an_operation() {
        let id = Uuid::from_u128(5);
        assert_eq!(parse_operation_id(&id.hyphenated().to_string()), Some(id));
        let upper = id.hyphenated().to_string().to_uppercase();
        assert_eq!(parse_operation_id(&upper), Some(id));
        for text in ["", "5", &id.simple().to_string(), &format!("{{{id}}}")] {
            assert!(parse_operation_id(text).is_none(), "{text}");
        }
    }

    #[test]
    fn the_status_shows_the_kinds_result_member_as_stored() {
        let view = OperationView {
            id: Uuid::from_u128(3),
            operation_type: "payments.capture.v1".to_owned(),
            order: OrderId::new(9),
            state: State::Succeeded,
            result: Members::parse(br#"{"payment":{"paymentId":"4","amount":1500}}"#).unwrap(),
            updated_at: DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        };
        assert_eq!(
            String::from_utf8(ReadOperation::to_json(&view)).unwrap(),
            r#"{"operationId":"00000000-0000-0000-0000-000000000003","type":"payments.capture.v1","orderId":"9","state":"succeeded","payment":{"paymentId":"4","amount":1500},"updatedAt":"2023-11-14T22:13:20.000000Z"}"#
        );
    }
}
