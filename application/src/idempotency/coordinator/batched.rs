//! Leading a request of a batched operation (`docs/storage.md#batched-creates`): a batch of
//! one is the flow of every other request; a batch of several is one transaction with the
//! design's order kept for every member (their key records first, inserted complete with
//! the answers planned before any row, then their business rows, then one `COMMIT`), and
//! any failure before the commit runs every member again alone.

use domain::{Completion, ExistingRecord, RecordState};
use tracing::Instrument;

use super::{Coordinator, Request};
use crate::idempotency::batch_queue::{Entry, Joined, Turn};
use crate::idempotency::batching::{BatchAnswer, Batching, Member, RerunCause};
use crate::idempotency::operation::{
    BatchMember, IdempotentOperation, Refusal, RefusalForms, StepContext, StepError, Steps,
};
use crate::idempotency::outcome::{Outcome, UnknownCause};
use crate::ports::{
    CommitError, FlowHooks, InsertRecordError, KeyPoint, NewRecord, RecordReader, RecordTx,
    StoreError, UnitOfWork,
};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// Batched when the operation declares it and the process batches; an operation that
    /// may store a refusal never is, as its undo needs a savepoint per member.
    pub(super) async fn lead_or_batch<Op>(
        &self,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let may_store = Op::Refusal::ALL.iter().any(|refusal| refusal.is_stored());
        match &self.batching {
            Some(batching) if <U::Tx as Steps<Op>>::BATCHED && !may_store => {
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
        };
        let (slot, entries) = match batching.queue::<Op>().join(member) {
            Joined::Drive(slot, entries) => (slot, entries),
            Joined::Wait(turn) => match turn.await {
                Ok(Turn::Answer(answer)) => return self.answered(request, answer).await,
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
        self.answered(request, own).await
    }

    async fn answered<Op>(
        &self,
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
            BatchAnswer::Unknown(cause) => (Outcome::OutcomeUnknown(cause), None),
            BatchAnswer::Alone => self.lead(request).await,
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
        let answers = match self.transaction(op, &members).instrument(span).await {
            Ok(answers) => {
                batching.observer().batch_ran(Op::NAME, size);
                answers
            }
            Err(Ended::Unknown(cause)) => {
                batching.observer().batch_ran(Op::NAME, size);
                (0..size).map(|_| BatchAnswer::Unknown(cause)).collect()
            }
            Err(Ended::Rerun(cause)) => {
                batching.observer().batch_rerun(Op::NAME, cause, size);
                (0..size).map(|_| BatchAnswer::Alone).collect()
            }
        };
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

    /// The batch's one transaction; the members' answers in their order.
    async fn transaction<Op>(
        &self,
        op: &Op,
        members: &[Member<Op::Input>],
    ) -> Result<Vec<BatchAnswer>, Ended>
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
    {
        let mut tx = self
            .unit_of_work
            .begin_batch()
            .await
            .map_err(|error| ended_by(&error))?;
        // One time for the batch, as for one request: its members commit together.
        let now = self.clock.now();
        let records: Vec<NewRecord> = members
            .iter()
            .map(|m| NewRecord {
                created_at: now,
                ..m.record.clone()
            })
            .collect();
        let steps: Vec<BatchMember<Op::Input>> = members
            .iter()
            .map(|m| BatchMember {
                context: StepContext { now, ..m.context },
                input: m.input.clone(),
            })
            .collect();
        // Every answer is known before the first row: each record goes in complete.
        let plan = match tx.plan_batch(op, &steps).await {
            Ok(plan)
                if plan.responses.len() == members.len() && plan.ids.len() == members.len() =>
            {
                plan
            }
            Ok(_) | Err(StepError::Internal(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
            }
            Err(StepError::Rejected(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Refused)).await;
            }
            Err(StepError::Store(error)) => return rolled_back(tx, ended_by(&error)).await,
        };
        let mut completed: Vec<(NewRecord, Completion)> = Vec::with_capacity(records.len());
        for (record, response) in records.into_iter().zip(plan.responses) {
            match Completion::new(response, now, self.settings.retention) {
                Ok(completion) => completed.push((record, completion)),
                Err(_) => return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await,
            }
        }
        if !self.each_member(KeyPoint::BeforeRecord, &completed).await {
            return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
        }
        let ids = match tx.insert_completed_batch(&completed).await {
            Ok(ids) if ids.len() == members.len() => ids,
            Ok(_) => return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await,
            Err(InsertRecordError::KeyAlreadyRegistered) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::KeyTaken)).await;
            }
            Err(InsertRecordError::Store(error)) => return rolled_back(tx, ended_by(&error)).await,
        };
        if !self.each_member(KeyPoint::RecordInserted, &completed).await {
            return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
        }
        match tx.step_batch(op, &steps, &plan.ids).await {
            Ok(()) => {}
            Err(StepError::Internal(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
            }
            Err(StepError::Rejected(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Refused)).await;
            }
            Err(StepError::Store(error)) => return rolled_back(tx, ended_by(&error)).await,
        }
        if !self.each_member(KeyPoint::BeforeCommit, &completed).await {
            return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
        }
        let committed = tx
            .commit()
            .instrument(tracing::info_span!(target: "spans", "commit"))
            .await;
        match committed {
            Ok(()) => {
                // Too late to abort: the verdict is ignored.
                let _ = self.each_member(KeyPoint::Committed, &completed).await;
                Ok(ids
                    .into_iter()
                    .zip(completed)
                    .map(|(id, (record, completion))| BatchAnswer::Executed {
                        response: completion.response.clone(),
                        record: Box::new(ExistingRecord {
                            id,
                            fingerprint: record.fingerprint,
                            state: RecordState::Completed(completion),
                        }),
                    })
                    .collect())
            }
            Err(CommitError::RolledBack) => Err(Ended::Rerun(RerunCause::RolledBackAtCommit)),
            Err(CommitError::CommitOutcomeUnknown(_)) => {
                Err(Ended::Unknown(UnknownCause::CommitOutcomeUnknown))
            }
        }
    }
}

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// Every member passes `point`, in order; false when the hooks abort the batch.
    async fn each_member(&self, point: KeyPoint, members: &[(NewRecord, Completion)]) -> bool {
        for (record, _) in members {
            if self.aborted_at(point, &record.scope, &record.key).await {
                return false;
            }
        }
        true
    }
}

/// How a batch ended short of every member's success.
enum Ended {
    /// Nothing committed: each member runs alone.
    Rerun(RerunCause),
    /// The `COMMIT` was sent and its answer lost, or the database could not be reached (a
    /// lost connection, a timeout): every member is told what it would have been alone,
    /// and no one runs again into the same wait.
    Unknown(UnknownCause),
}

fn ended_by(error: &StoreError) -> Ended {
    match error {
        StoreError::LockWaitTimeout => Ended::Rerun(RerunCause::LockWaitTimeout),
        StoreError::Deadlock => Ended::Rerun(RerunCause::Deadlock),
        StoreError::ConnectionLost(_) => Ended::Unknown(UnknownCause::DatabaseUnavailable),
        StoreError::Timeout => Ended::Unknown(UnknownCause::DatabaseTimeout),
        StoreError::Other(_) => Ended::Rerun(RerunCause::Failed),
    }
}

/// A failed rollback discards the connection in the adapter; the members run alone anyway.
async fn rolled_back<T: RecordTx>(tx: T, ended: Ended) -> Result<Vec<BatchAnswer>, Ended> {
    let _ = tx.rollback().await;
    Err(ended)
}
