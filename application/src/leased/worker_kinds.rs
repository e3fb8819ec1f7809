//! The kinds a worker carries out, by name: a due operation is worked by its kind's code.

use super::forwarding::{Calls, Records};
use super::operation::LeasedOperation;
use super::ports::{DueOperation, OperationStore};
use super::recorded::BoxFuture;
use super::worked::Worked;
use super::worker::work_group;
use super::worker_ports::{WorkerPorts, WorkerSettings};
use crate::ports::{FlowHooks, StoreError};

type Work<S, P, H> = for<'a> fn(
    WorkerPorts<'a, S, P, H>,
    &'a WorkerSettings,
    &'a [DueOperation],
    &'a [tracing::Span],
) -> BoxFuture<'a, Result<Vec<Worked>, StoreError>>;

/// Built once from the list of served operations.
pub struct WorkerKinds<S, P, H> {
    kinds: Vec<(&'static str, Work<S, P, H>)>,
}

impl<S, P, H> std::fmt::Debug for WorkerKinds<S, P, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.kinds.iter().map(|(name, _)| name))
            .finish()
    }
}

impl<S, P, H> Default for WorkerKinds<S, P, H> {
    fn default() -> Self {
        Self { kinds: Vec::new() }
    }
}

impl<S, P, H> WorkerKinds<S, P, H>
where
    S: OperationStore + 'static,
    P: Send + Sync + 'static,
    H: FlowHooks + 'static,
{
    #[must_use]
    pub fn with<K>(mut self) -> Self
    where
        K: LeasedOperation + Default,
        S: OperationStore<Tx: Records<K>>,
        P: Calls<K>,
    {
        self.kinds.push((K::NAME, work_boxed::<K, S, P, H>));
        self
    }

    /// Every kind's name: the kinds the worker claims.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds.iter().map(|(name, _)| *name).collect()
    }

    /// `group`, operations of one kind, worked together by its kind's code
    /// ([`work_group`]); `None` for a kind this worker does not serve (never the case for
    /// what [`OperationStore::due`] gave for [`Self::names`]) or an empty group. Each call
    /// runs in its operation's span of `spans`.
    #[must_use]
    pub fn work<'a>(
        &self,
        ports: WorkerPorts<'a, S, P, H>,
        settings: &'a WorkerSettings,
        group: &'a [DueOperation],
        spans: &'a [tracing::Span],
    ) -> Option<BoxFuture<'a, Result<Vec<Worked>, StoreError>>> {
        let kind = &group.first()?.kind;
        self.kinds
            .iter()
            .find(|(name, _)| name == kind)
            .map(|(_, work)| work(ports, settings, group, spans))
    }
}

fn work_boxed<'a, K, S, P, H>(
    ports: WorkerPorts<'a, S, P, H>,
    settings: &'a WorkerSettings,
    group: &'a [DueOperation],
    spans: &'a [tracing::Span],
) -> BoxFuture<'a, Result<Vec<Worked>, StoreError>>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>> + 'static,
    P: Calls<K> + 'static,
    H: FlowHooks + 'static,
{
    Box::pin(work_group::<K, S, P, H>(ports, settings, group, spans))
}
