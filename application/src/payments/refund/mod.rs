//! `payments.refund.v1` (`docs/long-running-operations.md#refunds`): accepted against the
//! order's succeeded capture while the refunds not declined stay within what it captured,
//! carried out by refunding the provider's charge, recorded as a refund with its
//! `payments.refunded.v1` event.

use domain::{Amount, FingerprintVersion, Fingerprinted, OrderId, Reason, StoredResponse};
use serde::Serialize;

use super::events::write_payment_event;
use super::provider::{PaymentProvider, ProviderRequest, ProviderResource};
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
mod job;
mod port;

pub use job::{RefundJob, RefundJobError};
pub use port::{CapturedCharge, RefundAcceptance, RefundRecords, RefundableCharge};

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
