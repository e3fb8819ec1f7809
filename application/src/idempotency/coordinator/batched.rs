//! Leading a request of a batched operation (`docs/storage.md#batched-operations`): a batch
//! of one is the flow of every other request; a batch of several reads its members' keys
//! in one statement, then writes those without a record in one transaction
//! (`batch_transaction.rs`), and answers the rest from what it read or by their own runs.

use domain::{ExistingRecord, RecordState};
use tracing::Instrument;

use super::batch_transaction::Ended;
use super::{Coordinator, Request};
use crate::ErrorChain;
use crate::idempotency::batch_queue::{Entry, Joined, Turn};
use crate::idempotency::batching::{BatchAnswer, Batching, Member, RerunCause};
use crate::idempotency::operation::{IdempotentOperation, RefusalForms, StepContext, Steps};
use crate::idempotency::outcome::{Outcome, UnknownCause};
use crate::ports::{FlowHooks, NewRecord, RecordReader, UnitOfWork};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// Batched when the operation declares it and the process batches. A stored refusal
    /// needs its own savepoint, so it is only ever a run alone's: a batch that meets any
    /// refusal rolls back whole and its members run alone.
    pub(super) async fn lead_or_batch<Op>(
        &self,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        match &self.batching {
            Some(batching) if <U::Tx as Steps<Op>>::BATCHED => {
                self.lead_batched(batching, request).await
            }
            _ => self.lead(request).await,
        }
    }

    pub(super) async fn lead_batched<Op>(
        &self,
        batching: &Batching,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let now = self.clock.now();
        let member = Member {
            record: NewRecord {
                scope: request.scope.clone(),
                key: request.key.clone(),
                fingerprint: request.fingerprint,
                created_at: now,
            },
            context: StepContext {
                tenant: request.scope.tenant,
                actor: request.scope.actor,
                now,
            },
            input: request.input.clone(),
            span: tracing::Span::current(),
        };
        let (slot, entries) = match batching.queue::<Op>().join(member) {
            Joined::Drive(slot, entries) => (slot, entries),
            Joined::Wait(turn) => match turn.await {
                Ok(Turn::Answer(answer)) => {
                    return self.answered(batching, request, answer).await;
                }
                Ok(Turn::Drive(slot, entries)) => (slot, entries),
                // Its batch's driver is gone, and nothing of it committed: alone.
                Err(_) => return self.lead(request).await,
            },
        };
        if entries.len() == 1 {
            // The slot is held through the run, so requests arriving meanwhile gather.
            let led = self.lead(request).await;
            if let Outcome::OutcomeUnknown(
                cause @ (UnknownCause::DatabaseUnavailable | UnknownCause::DatabaseTimeout),
            ) = led.0
            {
                slot.answer_waiting(|| BatchAnswer::Unknown(cause));
            }
            drop(slot);
            return led;
        }
        let own = self.run_batch(batching, request.op, entries).await;
        if let BatchAnswer::Unknown(
            cause @ (UnknownCause::DatabaseUnavailable | UnknownCause::DatabaseTimeout),
        ) = own
        {
            slot.answer_waiting(|| BatchAnswer::Unknown(cause));
        }
        drop(slot);
        self.answered(batching, request, own).await
    }

    async fn answered<Op>(
        &self,
        batching: &Batching,
        request: &Request<'_, Op>,
        answer: BatchAnswer,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        match answer {
            BatchAnswer::Executed { response, record } => (
                Outcome::Executed {
                    record: record.id,
                    response,
                },
                Some(*record),
            ),
            BatchAnswer::Found(record) => {
                self.remember(request, &record);
                (self.answer_from(request, &record), Some(*record))
            }
            BatchAnswer::Unknown(cause) => (Outcome::OutcomeUnknown(cause), None),
            BatchAnswer::Alone => {
                let led = self.lead(request).await;
                // A member refused alone, left out by a wary plan or rerun, keeps the next
                // batches wary: while refusals go on, each batch leaves them out instead of
                // rolling back whole once the last rerun is some batches behind.
                if matches!(
                    led.0,
                    Outcome::Rejected(_) | Outcome::RejectedAndStored { .. }
                ) {
                    batching.recent().step_ended(Op::NAME, true);
                }
                led
            }
        }
    }

    /// Runs the batch, sends each other member its answer, and gives back the driver's own
    /// (the first entry's).
    async fn run_batch<Op>(
        &self,
        batching: &Batching,
        op: &Op,
        entries: Vec<Entry<Member<Op::Input>, BatchAnswer>>,
    ) -> BatchAnswer
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
    {
        let size = entries.len();
        let span = tracing::info_span!(target: "spans", "batch", members = size);
        let (members, replies): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .map(|entry| (entry.member, entry.reply))
            .unzip();
        let answers = self
            .batch_answers(batching, op, &members)
            .instrument(span)
            .await;
        let mut answers = answers.into_iter();
        let own = answers.next().unwrap_or(BatchAnswer::Alone);
        for (reply, answer) in replies.into_iter().skip(1).zip(answers) {
            if let Some(reply) = reply {
                // A member gone meanwhile is no one to tell.
                let _ = reply.send(Turn::Answer(answer));
            }
        }
        own
    }

    /// One read of every member's key first, while recent batches found records: a
    /// COMPLETED record is answered from, one still running is left to the member's own
    /// run, and only the keys without a record go into the batch's transaction
    /// (`docs/storage.md#a-batchs-read-of-its-keys`).
    async fn batch_answers<Op>(
        &self,
        batching: &Batching,
        op: &Op,
        members: &[Member<Op::Input>],
    ) -> Vec<BatchAnswer>
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
    {
        let read = batching.recent().reads_keys(Op::NAME);
        let mut answers = if read {
            let answers = self.read_keys(members).await;
            let found = answers.iter().filter(|answer| answer.is_some()).count();
            batching.recent().read_found(Op::NAME, found, members.len());
            answers
        } else {
            members.iter().map(|_| None).collect()
        };
        let writing: Vec<&Member<Op::Input>> = members
            .iter()
            .zip(&answers)
            .filter(|(_, answer)| answer.is_none())
            .map(|(member, _)| member)
            .collect();
        if writing.is_empty() {
            return answers.into_iter().flatten().collect();
        }
        let size = writing.len();
        let wary = batching.recent().plans_warily(Op::NAME);
        let mut written = match self.transaction(op, &writing, wary).await {
            Ok(written) => {
                batching.recent().step_ended(Op::NAME, false);
                // The members it wrote: the others run alone, each counted as a request.
                let executed = written
                    .iter()
                    .filter(|answer| matches!(answer, BatchAnswer::Executed { .. }))
                    .count();
                if executed > 0 {
                    batching.observer().batch_ran(Op::NAME, executed);
                }
                written
            }
            Err(Ended::Unknown(cause)) => {
                batching.observer().batch_ran(Op::NAME, size);
                (0..size).map(|_| BatchAnswer::Unknown(cause)).collect()
            }
            Err(Ended::Rerun(cause)) => {
                match cause {
                    RerunCause::KeyTaken => batching.recent().key_taken(Op::NAME),
                    RerunCause::Refused => batching.recent().step_ended(Op::NAME, true),
                    _ => {}
                }
                batching.observer().batch_rerun(Op::NAME, cause, size);
                (0..size).map(|_| BatchAnswer::Alone).collect()
            }
        }
        .into_iter();
        for answer in answers.iter_mut().filter(|answer| answer.is_none()) {
            *answer = Some(written.next().unwrap_or(BatchAnswer::Alone));
        }
        answers.into_iter().flatten().collect()
    }

    /// Each member's answer from its key's record, or `None` where it has none (or the read
    /// failed: the insert then finds any record, as every request's does).
    async fn read_keys<I>(&self, members: &[Member<I>]) -> Vec<Option<BatchAnswer>> {
        let keys: Vec<_> = members
            .iter()
            .map(|member| (&member.record.scope, &member.record.key))
            .collect();
        match self.reader.find_many(&keys).await {
            Ok(found) if found.len() == members.len() => found
                .into_iter()
                .map(|record| {
                    record.map(|record| match record.state {
                        RecordState::Completed(_) => BatchAnswer::Found(Box::new(record)),
                        RecordState::Processing => BatchAnswer::Alone,
                    })
                })
                .collect(),
            Ok(_) => members.iter().map(|_| None).collect(),
            Err(error) => {
                tracing::info!(error = %ErrorChain(&error), "a batch's read of its keys failed; inserting");
                members.iter().map(|_| None).collect()
            }
        }
    }
}
