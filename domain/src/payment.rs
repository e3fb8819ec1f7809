//! `payments.capture.v1`: the validated input, its fingerprint fields, and the states of
//! the long-running operation that carries it out (`docs/long-running-operations.md`).

use crate::fingerprint::{FingerprintVersion, Fingerprinted};
use crate::order::OrderId;

/// In minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Amount(u32);

pub const MAX_AMOUNT: u32 = 10_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PaymentInputError {
    #[error("amount must be an integer from 1 to {MAX_AMOUNT}")]
    Amount,
    #[error("currency must be three letters A-Z")]
    Currency,
}

impl Amount {
    pub fn parse(raw: i64) -> Result<Self, PaymentInputError> {
        u32::try_from(raw)
            .ok()
            .filter(|n| (1..=MAX_AMOUNT).contains(n))
            .map(Self)
            .ok_or(PaymentInputError::Amount)
    }

    #[must_use]
    pub fn get(self) -> u32 {
        self.0
    }
}

/// Three letters `A-Z`, ISO 4217 in shape only: which codes exist is the provider's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency([u8; 3]);

impl Currency {
    pub fn parse(raw: &str) -> Result<Self, PaymentInputError> {
        match raw.as_bytes() {
            &[a, b, c] if [a, b, c].iter().all(u8::is_ascii_uppercase) => Ok(Self([a, b, c])),
            _ => Err(PaymentInputError::Currency),
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        // Three ASCII letters, checked at parse: always UTF-8.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentCapture {
    pub order: OrderId,
    pub amount: Amount,
    pub currency: Currency,
}

impl Fingerprinted for PaymentCapture {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    /// Order, amount, currency, in that order (`docs/http-api.md#request-fingerprints`).
    fn fingerprint_fields(&self) -> Vec<String> {
        vec![
            self.order.get().to_string(),
            self.amount.get().to_string(),
            self.currency.as_str().to_owned(),
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationState {
    Pending,
    /// Done: the provider charged, and the payment row exists.
    Succeeded,
    Declined,
    /// Attempts ran out or the outcome cannot be known: a person decides, never a blind retry.
    NeedsReview,
    /// An operator stopped it before it was charged (`docs/admin.md#actions`).
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown operation state")]
pub struct UnknownState;

impl OperationState {
    /// Every state, so a count by state can name the ones no operation is in.
    pub const ALL: [Self; 5] = [
        Self::Pending,
        Self::Succeeded,
        Self::Declined,
        Self::NeedsReview,
        Self::Cancelled,
    ];

    #[must_use]
    pub const fn as_stored(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Succeeded => "SUCCEEDED",
            Self::Declined => "DECLINED",
            Self::NeedsReview => "NEEDS_REVIEW",
            Self::Cancelled => "CANCELLED",
        }
    }

    #[must_use]
    pub fn as_api(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Declined => "declined",
            Self::NeedsReview => "needs_review",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn from_stored(raw: &str) -> Result<Self, UnknownState> {
        Self::ALL
            .into_iter()
            .find(|state| state.as_stored() == raw)
            .ok_or(UnknownState)
    }

    /// The API's spelling, as a filter names it.
    pub fn from_api(raw: &str) -> Result<Self, UnknownState> {
        Self::ALL
            .into_iter()
            .find(|state| state.as_api() == raw)
            .ok_or(UnknownState)
    }

    #[must_use]
    pub fn is_final(self) -> bool {
        self != Self::Pending
    }

    /// Nobody will act on it again: succeeded, declined or cancelled. A pending operation
    /// is a worker's, one in review a person's.
    #[must_use]
    pub fn is_settled(self) -> bool {
        !matches!(self, Self::Pending | Self::NeedsReview)
    }

    #[must_use]
    pub fn may_end_in(self, to: Self) -> bool {
        self == Self::Pending && to.is_final()
    }

    /// Pending or succeeded keeps a second capture of the order out (`409 payment_exists`);
    /// declined, reviewed or cancelled leaves room for another try.
    #[must_use]
    pub fn blocks_another_capture(self) -> bool {
        matches!(self, Self::Pending | Self::Succeeded)
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;
    use crate::{Operation, canonical_bytes};

    #[test]
    fn a_state_reads_back_from_its_api_spelling_and_only_the_unfinished_are_unsettled() {
        for state in OperationState::ALL {
            assert_eq!(OperationState::from_api(state.as_api()), Ok(state));
            let unsettled = matches!(state, OperationState::Pending | OperationState::NeedsReview);
            assert_eq!(state.is_settled(), !unsettled, "{state:?}");
        }
        assert_eq!(OperationState::from_api("PENDING"), Err(UnknownState));
    }

    fn capture() -> PaymentCapture {
        PaymentCapture {
            order: OrderId::new(42),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    }

    #[test]
    fn the_fingerprint_is_the_contracts_text_hashed() {
        let operation = Operation::parse("payments.capture.v1").unwrap();
        let text = "payments.capture.v1\n1\n42\n1500\nJPY\n";
        let fields = capture().fingerprint_fields();
        assert_eq!(
            canonical_bytes(&operation, PaymentCapture::RULE_VERSION, &fields),
            text.as_bytes()
        );
        let expected: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        assert_eq!(capture().fingerprint(&operation).hash(), &expected);
    }

    #[test]
    fn amounts_are_1_to_ten_million_minor_units() {
        assert_eq!(Amount::parse(1).unwrap().get(), 1);
        assert_eq!(Amount::parse(10_000_000).unwrap().get(), 10_000_000);
        for bad in [0, -1, 10_000_001, i64::MAX] {
            assert_eq!(Amount::parse(bad), Err(PaymentInputError::Amount), "{bad}");
        }
    }

    #[test]
    fn currencies_are_exactly_three_capital_letters() {
        assert_eq!(Currency::parse("USD").unwrap().as_str(), "USD");
        for bad in ["", "JP", "JPYY", "jpy", "J1Y", "ÄBC", "JP "] {
            assert_eq!(
                Currency::parse(bad),
                Err(PaymentInputError::Currency),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn only_a_pending_operation_ends_and_only_in_a_final_state() {
        use OperationState::*;
        for from in OperationState::ALL {
            for to in OperationState::ALL {
                assert_eq!(
                    from.may_end_in(to),
                    from == Pending && to != Pending,
                    "{from:?} -> {to:?}"
                );
            }
        }
    }

    #[test]
    fn stored_and_api_names_round_trip_and_unknown_names_are_refused() {
        use OperationState::*;
        for state in OperationState::ALL {
            assert_eq!(OperationState::from_stored(state.as_stored()), Ok(state));
            assert_eq!(state.as_api(), state.as_stored().to_ascii_lowercase());
        }
        assert_eq!(OperationState::from_stored("pending"), Err(UnknownState));
        assert!(Pending.blocks_another_capture() && Succeeded.blocks_another_capture());
        assert!(!Declined.blocks_another_capture() && !NeedsReview.blocks_another_capture());
        assert!(!Cancelled.blocks_another_capture());
    }
}
