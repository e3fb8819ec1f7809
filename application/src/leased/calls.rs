//! A claimed group's calls to the other service (`docs/long-running-operations.md#the-worker`):
//! all at once under one heartbeat, each under its operation's fixed key.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::AttemptError;
use futures_util::future::{Either, join_all, select};
use tracing::Instrument;
use uuid::Uuid;

use super::ends::{Finished, end_all, retry_later};
use super::forwarding::{Calls, Records};
use super::operation::{Definite, LeasedOperation, ProviderAnswer, Work};
use super::ports::{DueOperation, Ending, OperationStore};
use super::recorded::decode_job;
use super::worked::{Step, Worked, shared_failure};
use super::worker_ports::{CallObserver, Held, WorkerPorts, WorkerSettings};
use crate::ports::{Clock, FlowHooks, PausePoint, StoreError};

/// What an answer of the other service comes to for its operation.
enum Settled {
    End(Ending, u32),
    Retry(u32, AttemptError),
}

/// Each held operation of the group worked to its end, a retry or a loss: `(slot, worked)`.
pub(super) async fn work_held<K, S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    held: Vec<Held<'_>>,
    spans: &[tracing::Span],
    claimed_at: DateTime<Utc>,
) -> Vec<(usize, Worked)>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
    P: Calls<K>,
    H: FlowHooks,
{
    let mut done = Vec::with_capacity(held.len());
    let mut finished = Vec::new();
    let mut calling = Vec::new();
    for member in held {
        match job_of::<K>(settings, member.operation, claimed_at) {
            Ok(job) => calling.push((member, job)),
            Err(uncalled) => finished.push(Finished {
                attempts: member.operation.attempts,
                ending: Ending::NeedsReview(uncalled),
                member,
            }),
        }
    }
    match call_all::<K, S, P, H>(ports, settings, calling, spans).await {
        Ok(answered) => {
            for (member, answer) in answered {
                let Some(answer) = answer else {
                    done.push((member.slot, Worked::LeaseLost));
                    continue;
                };
                ports.hooks.reached(PausePoint::OperationCharged).await;
                match settle(settings, member.operation, answer) {
                    Settled::End(ending, attempts) => finished.push(Finished {
                        member,
                        ending,
                        attempts,
                    }),
                    Settled::Retry(attempts, error) => {
                        let worked = retry_later(ports, settings, &member, attempts, error).await;
                        done.push((member.slot, worked));
                    }
                }
            }
        }
        Err((members, error)) => {
            let errors = shared_failure(error, members.len());
            done.extend(members.iter().zip(errors).map(|(member, error)| {
                let step = Step::Extension;
                (member.slot, Worked::Abandoned { step, error })
            }));
        }
    }
    done.extend(end_all::<K, S>(ports.store, ports.clock, finished).await);
    done
}

/// Past the key's retention the other service may have forgotten it, so a call could do
/// the work twice; and nothing can be asked for a job that no longer reads. A person
/// decides either.
fn job_of<K: LeasedOperation>(
    settings: &WorkerSettings,
    operation: &DueOperation,
    claimed_at: DateTime<Utc>,
) -> Result<K::Job, AttemptError> {
    if operation.accepted_at + settings.key_retention <= claimed_at {
        return Err(AttemptError::KeyRetentionPassed);
    }
    decode_job::<K::Job>(&operation.input).map_err(|_| AttemptError::InputUnreadable)
}

type Answered<'a> = (Held<'a>, Option<Result<Definite, AttemptError>>);

/// Every member's answer, `None` for one whose lease an extension found taken over (its
/// answer, if it came, is not written). `Err` when an extension failed: the calls are
/// dropped and nothing more is written.
async fn call_all<'a, K, S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    calling: Vec<(Held<'a>, K::Job)>,
    spans: &[tracing::Span],
) -> Result<Vec<Answered<'a>>, (Vec<Held<'a>>, StoreError)>
where
    K: LeasedOperation + Default,
    S: OperationStore,
    P: Calls<K>,
{
    let (mut members, jobs): (Vec<Held<'a>>, Vec<K::Job>) = calling.into_iter().unzip();
    if members.is_empty() {
        return Ok(Vec::new());
    }
    let works: Vec<Work<'_, K::Job>> = members
        .iter()
        .map(|member| member.operation)
        .zip(&jobs)
        .map(|(operation, job)| Work {
            id: operation.id,
            tenant: operation.tenant,
            order: operation.order,
            key: &operation.downstream_key,
            job,
        })
        .collect();
    let asks = join_all(members.iter().zip(&works).map(|(member, work)| {
        let span = spans
            .get(member.slot)
            .cloned()
            .unwrap_or_else(tracing::Span::none);
        ask_provider::<K, P>(ports.provider, ports.calls, work).instrument(span)
    }));
    let mut live = vec![true; members.len()];
    let heard = while_leased(
        ports.store,
        ports.clock,
        settings,
        &mut members,
        &mut live,
        asks,
    );
    match heard.await {
        Ok(answers) => {
            let answers = answers.unwrap_or_default();
            let mut answers = answers.into_iter();
            Ok(members
                .into_iter()
                .zip(live)
                .map(|(member, live)| (member, answers.next().filter(|_| live)))
                .collect())
        }
        Err(error) => Err((members, error)),
    }
}

/// An unknown outcome is resolved by the result query for the same key, never a new one.
/// `Err` is the class of the call's failure: the attempt's, whatever the query said.
async fn ask_provider<K, P>(
    provider: &P,
    calls: &dyn CallObserver,
    work: &Work<'_, K::Job>,
) -> Result<Definite, AttemptError>
where
    K: LeasedOperation + Default,
    P: Calls<K>,
{
    let kind = K::default();
    let names = K::CALL_NAMES;
    match provider.call(&kind, work).await {
        ProviderAnswer::Definite(done) => {
            calls.called(names.call, "definite");
            Ok(done)
        }
        ProviderAnswer::Unknown(unknown) => {
            calls.called(names.call, "unknown");
            let found = provider.look_up(&kind, work).await;
            calls.called(
                names.lookup,
                match &found {
                    Ok(Some(_)) => "found",
                    Ok(None) => "not_found",
                    Err(_) => "error",
                },
            );
            found.ok().flatten().ok_or(unknown.class)
        }
    }
}

/// `None` when extensions found every member's lease taken over: `work` is dropped, nothing
/// more is written; a member found taken over alone is marked not `live`. A failed
/// extension is an error, with the same effect as losing them all. One statement extends
/// every live lease.
async fn while_leased<S, T>(
    store: &S,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    members: &mut [Held<'_>],
    live: &mut [bool],
    work: impl Future<Output = T>,
) -> Result<Option<T>, StoreError>
where
    S: OperationStore,
{
    let heartbeat = async {
        loop {
            clock.pause(settings.heartbeat()).await;
            let until = clock.now() + settings.lease;
            let extended: Vec<(usize, Uuid, domain::Lease)> = members
                .iter()
                .zip(live.iter())
                .enumerate()
                .filter(|(_, (_, live))| **live)
                .map(|(n, (member, _))| (n, member.operation.id, member.lease.until(until)))
                .collect();
            let asked: Vec<(Uuid, &domain::Lease)> =
                extended.iter().map(|(_, id, lease)| (*id, lease)).collect();
            let kept = store.extend_all(&asked).await?;
            for ((n, _, lease), kept) in extended.into_iter().zip(kept) {
                match (members.get_mut(n), live.get_mut(n)) {
                    (Some(member), _) if kept => member.lease = lease,
                    (_, Some(live)) => *live = false,
                    _ => {}
                }
            }
            if !live.contains(&true) {
                return Ok::<(), StoreError>(());
            }
        }
    };
    // The work is polled first: an answer that is ready wins over a due extension.
    match select(std::pin::pin!(work), std::pin::pin!(heartbeat)).await {
        Either::Left((done, _)) => Ok(Some(done)),
        Either::Right((lost, _)) => lost.map(|()| None),
    }
}

fn settle(
    settings: &WorkerSettings,
    operation: &DueOperation,
    answer: Result<Definite, AttemptError>,
) -> Settled {
    match answer {
        Ok(Definite {
            id,
            succeeded: true,
        }) => Settled::End(
            Ending::Succeeded {
                provider_id: id.into_string(),
            },
            operation.attempts,
        ),
        Ok(Definite {
            succeeded: false, ..
        }) => Settled::End(Ending::Declined, operation.attempts),
        Err(error) => {
            let attempts = operation.attempts.saturating_add(1);
            if attempts < settings.max_attempts {
                Settled::Retry(attempts, error)
            } else {
                Settled::End(Ending::NeedsReview(error), attempts)
            }
        }
    }
}
