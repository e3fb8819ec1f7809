//! `payments.refund.v1` (`docs/long-running-operations.md#refunds`): accepted against the
//! order's succeeded capture while the refunds not declined stay within what it captured,
//! carried out by refunding the provider's charge, recorded as a refund with its
//! `payments.refunded.v1` event.

use std::future::Future;

use domain::{
    Amount, Currency, FingerprintVersion, Fingerprinted, OrderId, PaymentInputError, Reason,
    StoredResponse, TenantId,
};
use serde::{Deserialize, Serialize};
use tracing::Instrument;

use super::events::write_payment_event;
use super::provider::{Money, PaymentProvider, ProviderRequest, ProviderResource};
use crate::events::{EventType, OrderRevisions, OutboxWriter};
use crate::idempotency::{
    BatchMember, BatchPlan, Execute, IdempotentOperation, NOT_FOUND, PlannedMember, Refusal,
    StepContext, StepError,
};
use crate::leased::{
    CallNames, CallOut, Definite, Ended, EndedAs, LeasedOperation, NewOperation, NoAnswer,
    ProviderAnswer, RecordOutcome, Work,
};
use crate::ports::StoreError;

mod batched;

/// Written when a refund succeeds, in the transaction that records it.
pub const PAYMENTS_REFUNDED: EventType = EventType::about_order("payments.refunded.v1");

/// The provider's refunds: `POST /v1/refunds`, `GET /v1/refunds?idempotency_key=`.
pub const REFUNDS: ProviderResource = ProviderResource {
    path: "refunds",
    one: "refund",
};

#[derive(Debug, Clone, Copy, Default)]
pub struct RefundPayment;

/// The validated input: the order from the path, amount and reason from the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub order: OrderId,
    pub amount: Amount,
    pub reason: Reason,
}

impl Fingerprinted for RefundRequest {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    /// Order, amount, reason (`docs/http-api.md#request-fingerprints`).
    fn fingerprint_fields(&self) -> Vec<String> {
        vec![
            self.order.get().to_string(),
            self.amount.get().to_string(),
            self.reason.as_str().to_owned(),
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundRefusal {
    OrderNotFound,
    /// No succeeded capture: nothing to refund (yet, or ever).
    NotRefundable,
    /// Over what the capture leaves after the refunds not declined.
    ExceedsCaptured,
}

impl Refusal for RefundRefusal {
    const ALL: &'static [Self] = &[
        Self::OrderNotFound,
        Self::NotRefundable,
        Self::ExceedsCaptured,
    ];

    fn code(self) -> &'static str {
        match self {
            Self::OrderNotFound => NOT_FOUND,
            Self::NotRefundable => "order_not_refundable",
            Self::ExceedsCaptured => "refund_exceeds_captured",
        }
    }

    /// The amount met what the order's refunds had left: a retry with the key is told the
    /// same, even after other refunds were declined and the money is free again.
    fn is_stored(self) -> bool {
        self == Self::ExceedsCaptured
    }
}

/// The order's succeeded capture, as a refund of it needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedCharge {
    /// The provider's id of the charge.
    pub charge: String,
    pub currency: Currency,
}

/// A succeeded capture as a batch plans a refund of it: what it has left after the
/// refunds not declined, as the read found it (the reservation's write checks it again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundableCharge {
    pub captured: CapturedCharge,
    pub left: u32,
}

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

/// A succeeded refund, as the status read and the admin show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundResult {
    /// The refund's id, a decimal string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    pub refund_id: String,
    /// The provider's id of the refund.
    pub provider_refund_id: String,
    /// As refunded, in minor units.
    #[schema(minimum = 1, maximum = 10_000_000)]
    pub amount: u32,
    /// The capture's.
    #[schema(pattern = "^[A-Z]{3}$")]
    pub currency: String,
}

/// The refund's acceptance reads and writes.
pub trait RefundAcceptance {
    /// The tenant's order's succeeded capture.
    ///
    /// # Errors
    /// `Rejected(OrderNotFound)` when the tenant has no such order, `Rejected(NotRefundable)`
    /// when it has no succeeded capture.
    fn captured_charge(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> impl Future<Output = Result<CapturedCharge, StepError<RefundRefusal>>> + Send;

    /// Reserves `amount` of the order's capture, in one conditional write that concurrent
    /// refunds of the order wait on, then writes the operation.
    ///
    /// # Errors
    /// `Rejected(ExceedsCaptured)` when the capture has less than `amount` left.
    fn accept_refund(
        &mut self,
        operation: &NewOperation,
        amount: Amount,
    ) -> impl Future<Output = Result<(), StepError<RefundRefusal>>> + Send;

    /// The succeeded capture of each of `orders` (a batch's, in its members' order) with
    /// what it has left, in one read that takes no lock; `None` where the tenant's order
    /// has none (or there is no such order: the member's own run tells which).
    fn refundable_charges(
        &mut self,
        orders: &[(TenantId, OrderId)],
    ) -> impl Future<Output = Result<Vec<Option<RefundableCharge>>, StoreError>> + Send;

    /// The acceptance of each of `accepted` (its operation, the amount it reserves, the
    /// span of the request it came in), each on an order of its own: the amounts reserved
    /// in one conditional write, the operations inserted in another where the store can.
    ///
    /// # Errors
    /// `Rejected(ExceedsCaptured)` when any capture has less left than its member asks,
    /// which fails the whole batch: its members then run alone.
    fn accept_refunds(
        &mut self,
        accepted: &[(&NewOperation, Amount, &tracing::Span)],
    ) -> impl Future<Output = Result<(), StepError<RefundRefusal>>> + Send
    where
        Self: Send,
    {
        async move {
            for (operation, amount, span) in accepted {
                self.accept_refund(operation, *amount)
                    .instrument((*span).clone())
                    .await?;
            }
            Ok(())
        }
    }
}

/// The refund's writes when it ends.
pub trait RefundRecords {
    /// The refund of the succeeded operation `ended`, made as `provider_refund_id`: its id.
    fn insert_refund(
        &mut self,
        ended: &Ended<'_, RefundJob>,
        provider_refund_id: &str,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Gives the declined refund's amount back to the order's capture.
    fn release_refund(
        &mut self,
        ended: &Ended<'_, RefundJob>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

impl IdempotentOperation for RefundPayment {
    const NAME: &'static str = "payments.refund.v1";
    const PERMISSION: &'static str = "payments:refund";
    const EVENTS: &'static [EventType] = &[PAYMENTS_REFUNDED];
    type Input = RefundRequest;
    type Refusal = RefundRefusal;
    type Reserved = NewOperation;
}

impl LeasedOperation for RefundPayment {
    type Job = RefundJob;
    type Result = RefundResult;
    const RESULT_MEMBER: &'static str = "refund";
    const PROVIDER_ID_MEMBER: &'static str = "providerRefundId";
    const CALL_NAMES: CallNames = CallNames {
        call: "refund",
        lookup: "refund_lookup",
    };
}

impl<Tx: RefundAcceptance + Send> Execute<Tx> for RefundPayment {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &RefundRequest,
    ) -> Result<StoredResponse, StepError<RefundRefusal>> {
        let captured = tx.captured_charge(context.tenant, input.order).await?;
        let operation = NewOperation::of::<Self>(context, input.order, &job_of(input, captured))?;
        tx.accept_refund(&operation, input.amount).await?;
        operation.accepted()
    }

    /// The members' captures read in one statement, each member decided in arrival order,
    /// then one reservation of the amounts and one write of the operations (`batched.rs`).
    /// A member whose answer could be a refusal (its stored one included) runs alone.
    const BATCHED: bool = true;

    async fn plan_batch(
        &self,
        tx: &mut Tx,
        members: &[BatchMember<RefundRequest>],
        _wary: bool,
    ) -> Result<BatchPlan<NewOperation>, StepError<RefundRefusal>> {
        batched::plan(tx, members).await
    }

    async fn execute_batch(
        &self,
        tx: &mut Tx,
        batch: &[PlannedMember<'_, RefundRequest, NewOperation>],
    ) -> Result<(), StepError<RefundRefusal>> {
        batched::write(tx, batch).await
    }
}

/// What the worker refunds for `input` of `captured`.
fn job_of(input: &RefundRequest, captured: CapturedCharge) -> RefundJob {
    RefundJob {
        charge: captured.charge,
        amount: input.amount,
        currency: captured.currency,
        reason: input.reason.clone(),
    }
}

impl<P: PaymentProvider + Sync> CallOut<P> for RefundPayment {
    async fn call(&self, provider: &P, work: &Work<'_, RefundJob>) -> ProviderAnswer {
        let reference = work.reference();
        let request = ProviderRequest {
            money: work.job.money(),
            reference: &reference,
            charge: Some(&work.job.charge),
        };
        provider.create(REFUNDS, work.key, &request).await
    }

    async fn look_up(
        &self,
        provider: &P,
        work: &Work<'_, RefundJob>,
    ) -> Result<Option<Definite>, NoAnswer> {
        provider.find(REFUNDS, work.key, work.job.money()).await
    }
}

impl<Tx: RefundRecords + OrderRevisions + OutboxWriter + Send> RecordOutcome<Tx> for RefundPayment {
    /// A cancelled refund records nothing: its amount stays reserved, since the provider
    /// may have refunded it (`docs/long-running-operations.md#refunds`).
    async fn record(
        &self,
        tx: &mut Tx,
        ended: &Ended<'_, RefundJob>,
    ) -> Result<Option<RefundResult>, StoreError> {
        let EndedAs::Succeeded { provider_id } = ended.outcome else {
            tx.release_refund(ended).await?;
            return Ok(None);
        };
        let refund = tx.insert_refund(ended, provider_id).await?;
        let money = (ended.job.amount, ended.job.currency);
        write_payment_event::<Self, _>(tx, PAYMENTS_REFUNDED, ended, money, provider_id).await?;
        Ok(Some(RefundResult {
            refund_id: refund.to_string(),
            provider_refund_id: provider_id.to_owned(),
            amount: ended.job.amount.get(),
            currency: ended.job.currency.as_str().to_owned(),
        }))
    }
}

#[cfg(test)]
mod tests;
