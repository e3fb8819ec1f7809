//! Who asked and for what: the scope an idempotency key lives in.

use std::borrow::Cow;
use std::fmt;

/// The largest id the database columns (`BIGINT`) can hold.
const MAX_ID: u64 = i64::MAX as u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("must be a positive integer")]
    NotPositive,
    #[error("must be at most {MAX_ID}")]
    TooLarge,
}

fn check_id(raw: u64) -> Result<u64, IdError> {
    match raw {
        0 => Err(IdError::NotPositive),
        n if n > MAX_ID => Err(IdError::TooLarge),
        n => Ok(n),
    }
}

macro_rules! positive_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u64);

        impl $name {
            pub fn parse(raw: u64) -> Result<Self, IdError> {
                check_id(raw).map(Self)
            }

            #[must_use]
            pub fn get(self) -> u64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

positive_id!(
    /// The tenant a caller belongs to, taken only from the verified token.
    TenantId
);
positive_id!(
    /// The acting user or client, taken only from the verified token.
    ActorId
);

/// The longest operation name the `operation VARBINARY(64)` column holds.
const MAX_OPERATION_LEN: usize = 64;

/// Versioned, as in `orders.create.v1`: a new meaning is a new name, which old keys never match.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Operation(Cow<'static, str>);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OperationError {
    #[error("an operation name has 1..={MAX_OPERATION_LEN} bytes")]
    BadLength,
    #[error("an operation name is dot-separated segments of a-z, 0-9 and '_'")]
    BadSegment,
}

impl Operation {
    pub fn parse(raw: &str) -> Result<Self, OperationError> {
        match check_operation(raw.as_bytes()) {
            Ok(()) => Ok(Self(Cow::Owned(raw.to_owned()))),
            Err(error) => Err(error),
        }
    }

    /// For route constants: an invalid name panics, which in a `const` stops the build.
    #[must_use]
    pub const fn named(name: &'static str) -> Self {
        match check_operation(name.as_bytes()) {
            Ok(()) => Self(Cow::Borrowed(name)),
            Err(_) => panic!("not a valid operation name"),
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

const fn check_operation(name: &[u8]) -> Result<(), OperationError> {
    if name.is_empty() || name.len() > MAX_OPERATION_LEN {
        return Err(OperationError::BadLength);
    }
    let mut segment_len = 0;
    let mut index = 0;
    while index < name.len() {
        let byte = name[index];
        if byte == b'.' {
            if segment_len == 0 {
                return Err(OperationError::BadSegment);
            }
            segment_len = 0;
        } else if byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_' {
            segment_len += 1;
        } else {
            return Err(OperationError::BadSegment);
        }
        index += 1;
    }
    if segment_len == 0 {
        return Err(OperationError::BadSegment);
    }
    Ok(())
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The space a key is unique in; mirrors the `uq_api_idempotency_scope_key` columns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    pub tenant: TenantId,
    pub actor: ActorId,
    pub operation: Operation,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_must_be_positive_and_fit_a_signed_bigint() {
        assert_eq!(TenantId::parse(0), Err(IdError::NotPositive));
        assert_eq!(TenantId::parse(1).map(TenantId::get), Ok(1));
        assert!(ActorId::parse(i64::MAX as u64).is_ok());
        assert_eq!(ActorId::parse(i64::MAX as u64 + 1), Err(IdError::TooLarge));
    }

    #[test]
    fn a_versioned_dotted_name_is_an_operation() {
        let op = Operation::parse("orders.create.v1").unwrap();
        assert_eq!(op.as_str(), "orders.create.v1");
    }

    #[test]
    fn operation_names_refuse_capitals_empty_segments_and_excess_length() {
        assert_eq!(
            Operation::parse("Orders.create"),
            Err(OperationError::BadSegment)
        );
        assert_eq!(
            Operation::parse("orders..v1"),
            Err(OperationError::BadSegment)
        );
        assert_eq!(Operation::parse(""), Err(OperationError::BadLength));
        assert_eq!(
            Operation::parse(&"a".repeat(65)),
            Err(OperationError::BadLength)
        );
    }

    #[test]
    fn an_operation_name_of_exactly_64_bytes_is_accepted() {
        let name = format!("orders.{}", "a".repeat(57));
        assert_eq!(name.len(), 64);
        assert_eq!(
            Operation::parse(&name).map(|op| op.as_str().to_owned()),
            Ok(name)
        );
    }

    #[test]
    fn a_named_operation_is_the_parsed_one() {
        const CREATE: Operation = Operation::named("orders.create.v1");
        assert_eq!(Operation::parse("orders.create.v1"), Ok(CREATE));
        assert_eq!(Operation::parse("orders."), Err(OperationError::BadSegment));
    }

    #[test]
    fn an_operation_displays_as_its_name() {
        assert_eq!(
            Operation::parse("orders.create.v1").unwrap().to_string(),
            "orders.create.v1"
        );
    }
}
