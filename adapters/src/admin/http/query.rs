//! The admin routes' query parameters (`docs/admin.md#listing`), read by the strict rules
//! of `strict_query.rs`.

use application::admin::{
    AuditCursor, Cursor, KeyAddress, OperationCursor, OperationFilter, PageLimit,
};
use domain::{ActorId, IdempotencyKey, Operation, OperationState, TenantId};

use super::strict_query::{
    BadParameters, Params, Reader, canonical_integer, positive_id, timestamp,
};

const ID_REASON: &str = "must be a positive integer of at most 19 digits";

fn limit(read: &mut Reader<'_>) -> PageLimit {
    read.optional("limit", "must be an integer from 1 to 100", |raw| {
        canonical_integer(raw).and_then(|n| PageLimit::parse(n).ok())
    })
    .unwrap_or_default()
}

#[derive(Debug, PartialEq, Eq)]
pub struct OperationsQuery {
    pub filter: OperationFilter,
    pub cursor: Option<OperationCursor>,
    pub limit: PageLimit,
}

/// # Errors
/// Every violation, named by parameter.
pub fn operations_query(query: &str) -> Result<OperationsQuery, BadParameters> {
    const NAMES: [&str; 7] = [
        "state",
        "type",
        "tenant",
        "acceptedBefore",
        "acceptedAfter",
        "cursor",
        "limit",
    ];
    let params = Params::parse(query, &NAMES)?;
    let mut read = Reader::new(&params);
    let filter = OperationFilter {
        state: read.optional("state", "must be an operation state", |raw| {
            OperationState::from_api(raw).ok()
        }),
        operation_type: read.optional("type", "must be an operation name", |raw| {
            Operation::parse(raw).ok().map(|op| op.as_str().to_owned())
        }),
        tenant: read.optional("tenant", ID_REASON, positive_id(TenantId::parse)),
        accepted_before: read.optional(
            "acceptedBefore",
            "must be an RFC 3339 date-time",
            timestamp,
        ),
        accepted_after: read.optional("acceptedAfter", "must be an RFC 3339 date-time", timestamp),
    };
    let cursor = read.optional(
        "cursor",
        "must be a nextCursor this route returned",
        |raw| OperationCursor::decode(raw).ok(),
    );
    let limit = limit(&mut read);
    read.finish(|| {
        Some(OperationsQuery {
            filter,
            cursor,
            limit,
        })
    })
}

/// # Errors
/// Every violation, named by parameter.
pub fn audit_query(query: &str) -> Result<(Option<AuditCursor>, PageLimit), BadParameters> {
    let params = Params::parse(query, &["cursor", "limit"])?;
    let mut read = Reader::new(&params);
    let cursor = read.optional(
        "cursor",
        "must be a nextCursor this route returned",
        |raw| AuditCursor::decode(raw).ok(),
    );
    let limit = limit(&mut read);
    read.finish(|| Some((cursor, limit)))
}

/// # Errors
/// Every violation, named by parameter.
pub fn key_query(query: &str) -> Result<KeyAddress, BadParameters> {
    let params = Params::parse(query, &["tenant", "actor", "operation", "key"])?;
    let mut read = Reader::new(&params);
    let tenant = read.required("tenant", ID_REASON, positive_id(TenantId::parse));
    let actor = read.required("actor", ID_REASON, positive_id(ActorId::parse));
    let operation = read.required("operation", "must be an operation name", |raw| {
        Operation::parse(raw).ok()
    });
    let key = read.required(
        "key",
        "must be 1 to 128 characters of A-Z a-z 0-9 - _",
        |raw| IdempotencyKey::parse(raw).ok(),
    );
    read.finish(|| {
        Some(KeyAddress {
            tenant: tenant?,
            actor: actor?,
            operation: operation?,
            key: key?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointers(errors: BadParameters) -> Vec<(String, &'static str)> {
        errors
            .0
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn no_parameters_list_everything_fifty_at_a_time() {
        let query = operations_query("").unwrap();
        assert_eq!(query.filter, OperationFilter::default());
        assert_eq!((query.cursor, query.limit), (None, PageLimit::DEFAULT));
    }

    #[test]
    fn every_filter_is_read() {
        let query = operations_query(
            "state=needs_review&type=payments.capture.v1&tenant=7\
             &acceptedBefore=2026-12-01T10:00:00Z&acceptedAfter=2026-11-30T10:00:00%2B09:00&limit=100",
        )
        .unwrap();
        assert_eq!(query.filter.state, Some(OperationState::NeedsReview));
        assert_eq!(
            query.filter.operation_type.as_deref(),
            Some("payments.capture.v1")
        );
        assert_eq!(query.filter.tenant.map(TenantId::get), Some(7));
        assert_eq!(
            query.filter.accepted_after.map(|at| at.to_rfc3339()),
            Some("2026-11-30T01:00:00+00:00".to_owned())
        );
        assert_eq!(query.limit.get(), 100);
    }

    #[test]
    fn unknown_repeated_empty_and_bad_parameters_are_each_named() {
        let errors =
            operations_query("limit=0&state=done&tenant=07&page=2&type=&cursor=x").unwrap_err();
        assert_eq!(
            pointers(errors),
            [
                ("/page".to_owned(), "unknown parameter"),
                ("/type".to_owned(), "must not be empty"),
            ]
        );
        let errors = operations_query("limit=0&state=done&tenant=07&cursor=x").unwrap_err();
        assert_eq!(
            pointers(errors),
            [
                ("/state".to_owned(), "must be an operation state"),
                ("/tenant".to_owned(), ID_REASON),
                (
                    "/cursor".to_owned(),
                    "must be a nextCursor this route returned"
                ),
                ("/limit".to_owned(), "must be an integer from 1 to 100"),
            ]
        );
        assert_eq!(
            pointers(audit_query("limit=1&limit=2").unwrap_err()),
            [("/limit".to_owned(), "this parameter appears more than once")]
        );
    }

    #[test]
    fn a_key_needs_all_four_parts() {
        let address = key_query("tenant=1&actor=2&operation=orders.create.v1&key=k-1").unwrap();
        assert_eq!(address.key.as_str(), "k-1");
        assert_eq!(
            pointers(key_query("tenant=1&key=a%20b").unwrap_err()),
            [
                ("/actor".to_owned(), "is required"),
                ("/operation".to_owned(), "is required"),
                (
                    "/key".to_owned(),
                    "must be 1 to 128 characters of A-Z a-z 0-9 - _"
                ),
            ]
        );
    }
}
