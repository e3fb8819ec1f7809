//! The refund's stored job: what its worker refunds, read back checked.

use domain::{Amount, Currency, PaymentInputError, Reason};
use serde::{Deserialize, Serialize};

use super::super::provider::Money;

/// What the worker refunds, stored as `{"charge":"ch_…","amount":500,"currency":"JPY",
/// "reason":"…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RefundMembers", into = "RefundMembers")]
pub struct RefundJob {
    pub charge: String,
    pub amount: Amount,
    pub currency: Currency,
    pub reason: Reason,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RefundMembers {
    charge: String,
    amount: i64,
    currency: String,
    reason: String,
}

impl RefundJob {
    /// What the refund gives back, as every answer about it must say.
    #[must_use]
    pub fn money(&self) -> Money {
        Money {
            amount: self.amount,
            currency: self.currency,
        }
    }
}

/// A stored job that no longer reads as one.
#[derive(Debug, thiserror::Error)]
pub enum RefundJobError {
    #[error("amount or currency")]
    Money(#[from] PaymentInputError),
    #[error("reason")]
    Reason(#[from] domain::ReasonError),
}

impl TryFrom<RefundMembers> for RefundJob {
    type Error = RefundJobError;

    fn try_from(members: RefundMembers) -> Result<Self, Self::Error> {
        Ok(Self {
            charge: members.charge,
            amount: Amount::parse(members.amount)?,
            currency: Currency::parse(&members.currency)?,
            reason: Reason::parse(&members.reason)?,
        })
    }
}

impl From<RefundJob> for RefundMembers {
    fn from(job: RefundJob) -> Self {
        Self {
            charge: job.charge,
            amount: i64::from(job.amount.get()),
            currency: job.currency.as_str().to_owned(),
            reason: job.reason.as_str().to_owned(),
        }
    }
}
