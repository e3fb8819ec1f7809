//! The validated input of `orders.create.v1`, the id of what it creates, and its status.

use std::fmt;

use crate::token_chars::{TokenTextError, check_token_text};

/// The longest `clientOrderRef` and `sku`, in characters.
const MAX_TEXT_LEN: usize = 64;

macro_rules! token_text {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            pub fn parse(raw: &str) -> Result<Self, TokenTextError> {
                check_token_text(raw, MAX_TEXT_LEN).map(|()| Self(raw.to_owned()))
            }

            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    };
}

token_text!(
    /// Unique per tenant, case-sensitive; after a purge it still stops a second order.
    ClientOrderRef
);
token_text!(Sku);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quantity(u8);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("must be an integer from 1 to 100")]
    OutOfRange,
}

impl Quantity {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 100;

    pub fn parse(raw: i64) -> Result<Self, QuantityError> {
        u8::try_from(raw)
            .ok()
            .filter(|q| (Self::MIN..=Self::MAX).contains(q))
            .map(Self)
            .ok_or(QuantityError::OutOfRange)
    }

    #[must_use]
    pub fn get(self) -> u8 {
        self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOrder {
    pub client_order_ref: ClientOrderRef,
    pub sku: Sku,
    pub quantity: Quantity,
}

/// An order's life: active from its creation, cancelled for good by `orders.cancel.v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    Active,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown order status")]
pub struct UnknownStatus;

impl OrderStatus {
    /// Every status, so a document can list them.
    pub const ALL: [Self; 2] = [Self::Active, Self::Cancelled];

    #[must_use]
    pub const fn as_stored(self) -> &'static str {
        match self {
            Self::Active => "ACTIVE",
            Self::Cancelled => "CANCELLED",
        }
    }

    #[must_use]
    pub const fn as_api(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn from_stored(raw: &str) -> Result<Self, UnknownStatus> {
        [Self::Active, Self::Cancelled]
            .into_iter()
            .find(|status| status.as_stored() == raw)
            .ok_or(UnknownStatus)
    }

    /// Only an active order takes a capture or a cancel: a cancelled one is final.
    #[must_use]
    pub fn is_active(self) -> bool {
        self == Self::Active
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderId(u64);

impl OrderId {
    #[must_use]
    pub fn new(raw: u64) -> Self {
        Self(raw)
    }

    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for OrderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_spelled_in_lowercase_on_the_api() {
        assert_eq!(OrderStatus::Active.as_api(), "active");
        assert_eq!(OrderStatus::Cancelled.as_api(), "cancelled");
    }

    #[test]
    fn a_status_reads_back_as_it_is_stored_and_nothing_else_does() {
        for status in [OrderStatus::Active, OrderStatus::Cancelled] {
            assert_eq!(OrderStatus::from_stored(status.as_stored()), Ok(status));
        }
        assert_eq!(OrderStatus::from_stored("active"), Err(UnknownStatus));
        assert!(OrderStatus::Active.is_active());
        assert!(!OrderStatus::Cancelled.is_active());
    }

    #[test]
    fn client_order_refs_are_case_sensitive_and_untrimmed() {
        assert_ne!(
            ClientOrderRef::parse("REF-1").unwrap(),
            ClientOrderRef::parse("ref-1").unwrap()
        );
        assert_eq!(
            ClientOrderRef::parse(" REF-1"),
            Err(TokenTextError::BadCharacter)
        );
    }

    #[test]
    fn a_sku_longer_than_64_characters_is_rejected() {
        assert!(Sku::parse(&"s".repeat(64)).is_ok());
        assert_eq!(
            Sku::parse(&"s".repeat(65)),
            Err(TokenTextError::TooLong { max: 64 })
        );
    }

    #[test]
    fn an_empty_client_order_ref_is_rejected() {
        assert_eq!(ClientOrderRef::parse(""), Err(TokenTextError::Empty));
    }

    #[test]
    fn quantity_accepts_one_to_one_hundred_only() {
        assert_eq!(Quantity::parse(1).map(Quantity::get), Ok(1));
        assert_eq!(Quantity::parse(100).map(Quantity::get), Ok(100));
        for bad in [0, 101, -1, 256, i64::MAX, i64::MIN] {
            assert_eq!(
                Quantity::parse(bad),
                Err(QuantityError::OutOfRange),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_order_id_reads_back_and_displays_as_the_number_the_database_assigned() {
        let id = OrderId::new(9_007_199_254_740_993);
        assert_eq!(id.get(), 9_007_199_254_740_993);
        assert_eq!(id.to_string(), "9007199254740993");
    }
}
