//! A batch's one transaction (`docs/storage.md#batched-operations`), in the design's order
//! for every member: the operation plans each member's answer before any row, the planned
//! members' key records go in complete, then their business rows, then one `COMMIT`. A
//! member the plan leaves out runs alone afterwards; any failure before the commit runs
//! every member again alone.

use domain::{Completion, ExistingRecord, RecordState};
use tracing::Instrument;

use super::Coordinator;
use crate::idempotency::batching::{BatchAnswer, Member, RerunCause};
use crate::idempotency::operation::{
    BatchMember, IdempotentOperation, PlannedMember, StepContext, StepError, Steps,
};
use crate::idempotency::outcome::UnknownCause;
use crate::ports::{
    CommitError, FlowHooks, InsertRecordError, KeyPoint, NewRecord, RecordReader, RecordTx,
    StoreError, UnitOfWork,
};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// The members' answers in their order; `wary` when recent batches of `Op` were
    /// refused ([`crate::Execute::plan_batch`]).
    pub(super) async fn transaction<Op>(
        &self,
        op: &Op,
        members: &[&Member<Op::Input>],
        wary: bool,
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
        let steps: Vec<BatchMember<Op::Input>> = members
            .iter()
            .map(|m| BatchMember {
                context: StepContext { now, ..m.context },
                input: m.input.clone(),
                span: m.span.clone(),
            })
            .collect();
        // Every answer is known before the first row: each record goes in complete.
        let plan = match tx.plan_batch(op, &steps, wary).await {
            Ok(plan) if plan.len() == members.len() => plan,
            Ok(_) | Err(StepError::Internal(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
            }
            Err(StepError::Rejected(_)) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::Refused)).await;
            }
            Err(StepError::Store(error)) => return rolled_back(tx, ended_by(&error)).await,
        };
        let mut batch: Vec<PlannedMember<'_, Op::Input, Op::Reserved>> = Vec::new();
        let mut completed: Vec<(NewRecord, Completion)> = Vec::new();
        for ((member, step), planned) in members.iter().zip(&steps).zip(&plan) {
            let Some(planned) = planned else { continue };
            let record = NewRecord {
                created_at: now,
                ..member.record.clone()
            };
            match Completion::new(planned.response.clone(), now, self.settings.retention) {
                Ok(completion) => completed.push((record, completion)),
                Err(_) => return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await,
            }
            batch.push((step, planned));
        }
        if batch.is_empty() {
            // Nothing to write: every member runs alone.
            let _ = tx.rollback().await;
            return Ok(members.iter().map(|_| BatchAnswer::Alone).collect());
        }
        if !self.each_member(KeyPoint::BeforeRecord, &completed).await {
            return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
        }
        let ids = match tx.insert_completed_batch(&completed).await {
            Ok(ids) if ids.len() == completed.len() => ids,
            Ok(_) => return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await,
            Err(InsertRecordError::KeyAlreadyRegistered) => {
                return rolled_back(tx, Ended::Rerun(RerunCause::KeyTaken)).await;
            }
            Err(InsertRecordError::Store(error)) => return rolled_back(tx, ended_by(&error)).await,
        };
        if !self.each_member(KeyPoint::RecordInserted, &completed).await {
            return rolled_back(tx, Ended::Rerun(RerunCause::Failed)).await;
        }
        match tx.step_batch(op, &batch).await {
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
                let mut executed =
                    ids.into_iter()
                        .zip(completed)
                        .map(|(id, (record, completion))| BatchAnswer::Executed {
                            response: completion.response.clone(),
                            record: Box::new(ExistingRecord {
                                id,
                                fingerprint: record.fingerprint,
                                state: RecordState::Completed(completion),
                            }),
                        });
                Ok(plan
                    .iter()
                    .map(|planned| match planned {
                        Some(_) => executed.next().unwrap_or(BatchAnswer::Alone),
                        None => BatchAnswer::Alone,
                    })
                    .collect())
            }
            Err(CommitError::RolledBack) => Err(Ended::Rerun(RerunCause::RolledBackAtCommit)),
            Err(CommitError::CommitOutcomeUnknown(_)) => {
                Err(Ended::Unknown(UnknownCause::CommitOutcomeUnknown))
            }
        }
    }

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
pub(super) enum Ended {
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
