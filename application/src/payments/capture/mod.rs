//! `payments.capture.v1` (`docs/long-running-operations.md`): accepted against the tenant's
//! active order, carried out by charging the payment provider, recorded as a payment with its
//! `payments.captured.v1` event.

use std::future::Future;

use domain::{Amount, Currency, OrderId, PaymentCapture, PaymentInputError};
use serde::{Deserialize, Serialize};
use tracing::Instrument;

use super::events::write_payment_event;
use super::provider::PaymentProvider;
use crate::events::{EventType, OrderRevisions, OutboxWriter};
use crate::idempotency::{
    BatchMember, BatchPlan, Execute, IdempotentOperation, NOT_FOUND, PlannedMember, Refusal,
    StepContext, StepError,
};
use crate::leased::{
    CallNames, CallOut, Definite, Ended, EndedAs, LeasedOperation, NewOperation, NoAnswer,
    ProviderAnswer, RecordOutcome, Work,
};
use crate::orders::OrderLocks;
use crate::ports::StoreError;

mod batched;

/// Written when a capture succeeds, in the transaction that records it.
pub const PAYMENTS_CAPTURED: EventType = EventType::about_order("payments.captured.v1");

#[derive(Debug, Clone, Copy, Default)]
pub struct CapturePayment;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureRefusal {
    OrderNotFound,
    PaymentExists,
    OrderCancelled,
}

impl Refusal for CaptureRefusal {
    const ALL: &'static [Self] = &[
        Self::OrderNotFound,
        Self::PaymentExists,
        Self::OrderCancelled,
    ];

    fn code(self) -> &'static str {
        match self {
            // Nothing about the order is revealed beyond "not yours or not there".
            Self::OrderNotFound => NOT_FOUND,
            Self::PaymentExists => "payment_exists",
            Self::OrderCancelled => "order_cancelled",
        }
    }
}

/// What the worker charges, stored as `{"amount":1500,"currency":"JPY"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ChargeMembers", into = "ChargeMembers")]
pub struct CaptureJob {
    pub amount: Amount,
    pub currency: Currency,
}

#[derive(Serialize, Deserialize)]
struct ChargeMembers {
    amount: i64,
    currency: String,
}

impl TryFrom<ChargeMembers> for CaptureJob {
    type Error = PaymentInputError;

    fn try_from(members: ChargeMembers) -> Result<Self, Self::Error> {
        Ok(Self {
            amount: Amount::parse(members.amount)?,
            currency: Currency::parse(&members.currency)?,
        })
    }
}

impl From<CaptureJob> for ChargeMembers {
    fn from(job: CaptureJob) -> Self {
        Self {
            amount: i64::from(job.amount.get()),
            currency: job.currency.as_str().to_owned(),
        }
    }
}

impl CaptureJob {
    #[must_use]
    pub fn of(order: OrderId, job: &Self) -> PaymentCapture {
        PaymentCapture {
            order,
            amount: job.amount,
            currency: job.currency,
        }
    }
}

/// A succeeded capture's payment, as the status read and the admin show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentResult {
    /// The payment's id, a decimal string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    pub payment_id: String,
    /// The provider's id of the charge.
    pub provider_charge_id: String,
    /// As captured, in minor units.
    #[schema(minimum = 1, maximum = 10_000_000)]
    pub amount: u32,
    /// As captured.
    #[schema(pattern = "^[A-Z]{3}$")]
    pub currency: String,
}

/// The capture's acceptance writes.
pub trait CaptureAcceptance {
    /// The order is written too (its revision), so a concurrent cancel of it and this
    /// capture never both commit.
    ///
    /// # Errors
    /// `Rejected(OrderNotFound)` when the tenant has no such order; `Rejected(OrderCancelled)`
    /// when it is cancelled; `Rejected(PaymentExists)` ONLY for the
    /// one-active-capture-per-order constraint.
    fn accept_capture(
        &mut self,
        operation: &NewOperation,
    ) -> impl Future<Output = Result<(), StepError<CaptureRefusal>>> + Send;

    /// The acceptance of each of `accepted`, whose orders a batch found locked, active and
    /// without a capture: the orders taken in one statement, the operations inserted in
    /// another where the store can. Each operation keeps the trace of the request in whose
    /// span it came.
    ///
    /// # Errors
    /// As [`CaptureAcceptance::accept_capture`]'s: any refusal fails the whole batch.
    fn accept_captures(
        &mut self,
        accepted: &[(&NewOperation, &tracing::Span)],
    ) -> impl Future<Output = Result<(), StepError<CaptureRefusal>>> + Send
    where
        Self: Send,
    {
        async move {
            for (operation, span) in accepted {
                self.accept_capture(operation)
                    .instrument((*span).clone())
                    .await?;
            }
            Ok(())
        }
    }
}

/// The capture's writes when it succeeds.
pub trait PaymentRecords {
    /// The payment of the succeeded capture `ended`, charged as `provider_charge_id`: its id.
    fn insert_payment(
        &mut self,
        ended: &Ended<'_, CaptureJob>,
        provider_charge_id: &str,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

impl IdempotentOperation for CapturePayment {
    const NAME: &'static str = "payments.capture.v1";
    const PERMISSION: &'static str = "payments:create";
    const EVENTS: &'static [EventType] = &[PAYMENTS_CAPTURED];
    type Input = PaymentCapture;
    type Refusal = CaptureRefusal;
    type Reserved = NewOperation;
}

impl LeasedOperation for CapturePayment {
    type Job = CaptureJob;
    type Result = PaymentResult;
    const RESULT_MEMBER: &'static str = "payment";
    const PROVIDER_ID_MEMBER: &'static str = "providerChargeId";
    const CALL_NAMES: CallNames = CallNames {
        call: "charge",
        lookup: "lookup",
    };
}

impl<Tx: CaptureAcceptance + OrderLocks + Send> Execute<Tx> for CapturePayment {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &PaymentCapture,
    ) -> Result<domain::StoredResponse, StepError<CaptureRefusal>> {
        let operation = NewOperation::of::<Self>(context, input.order, &job_of(input))?;
        tx.accept_capture(&operation).await?;
        operation.accepted()
    }

    /// Every member's order locked in one statement and their captures read in another,
    /// each member decided in arrival order, then one write of the orders and one of the
    /// operations (`batched.rs`). Alone, a capture takes the order by its `UPDATE`; in a
    /// batch the locking read comes first, so the plan knows which members may go in.
    const BATCHED: bool = true;

    async fn plan_batch(
        &self,
        tx: &mut Tx,
        members: &[BatchMember<PaymentCapture>],
        _wary: bool,
    ) -> Result<BatchPlan<NewOperation>, StepError<CaptureRefusal>> {
        batched::plan(tx, members).await
    }

    async fn execute_batch(
        &self,
        tx: &mut Tx,
        batch: &[PlannedMember<'_, PaymentCapture, NewOperation>],
    ) -> Result<(), StepError<CaptureRefusal>> {
        batched::write(tx, batch).await
    }
}

/// What the worker charges for `input`.
fn job_of(input: &PaymentCapture) -> CaptureJob {
    CaptureJob {
        amount: input.amount,
        currency: input.currency,
    }
}

impl<P: PaymentProvider + Sync> CallOut<P> for CapturePayment {
    async fn call(&self, provider: &P, work: &Work<'_, CaptureJob>) -> ProviderAnswer {
        let charge = CaptureJob::of(work.order, work.job);
        provider.charge(work.key, &charge, &work.reference()).await
    }

    async fn look_up(
        &self,
        provider: &P,
        work: &Work<'_, CaptureJob>,
    ) -> Result<Option<Definite>, NoAnswer> {
        provider
            .lookup(work.key, &CaptureJob::of(work.order, work.job))
            .await
    }
}

impl<Tx: PaymentRecords + OrderRevisions + OutboxWriter + Send> RecordOutcome<Tx>
    for CapturePayment
{
    async fn record(
        &self,
        tx: &mut Tx,
        ended: &Ended<'_, CaptureJob>,
    ) -> Result<Option<PaymentResult>, StoreError> {
        let EndedAs::Succeeded { provider_id } = ended.outcome else {
            return Ok(None);
        };
        let payment = tx.insert_payment(ended, provider_id).await?;
        let money = (ended.job.amount, ended.job.currency);
        write_payment_event::<Self, _>(tx, PAYMENTS_CAPTURED, ended, money, provider_id).await?;
        Ok(Some(PaymentResult {
            payment_id: payment.to_string(),
            provider_charge_id: provider_id.to_owned(),
            amount: ended.job.amount.get(),
            currency: ended.job.currency.as_str().to_owned(),
        }))
    }
}

#[cfg(test)]
mod tests;
