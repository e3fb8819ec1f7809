//! The kinds a process serves, by name: what the generic parts that meet an operation by
//! its stored kind (the admin's resolve, the worker's poll) look up.

use super::forwarding::Records;
use super::operation::LeasedOperation;
use super::recorded::{RecordEnd, RecordOf};

struct Kind<Tx> {
    name: &'static str,
    provider_id_member: &'static str,
    record: Box<dyn RecordEnd<Tx>>,
}

/// Built once from the list of served operations.
pub struct LeasedKinds<Tx> {
    kinds: Vec<Kind<Tx>>,
}

impl<Tx> std::fmt::Debug for LeasedKinds<Tx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.kinds.iter().map(|kind| kind.name))
            .finish()
    }
}

impl<Tx> Default for LeasedKinds<Tx> {
    fn default() -> Self {
        Self { kinds: Vec::new() }
    }
}

impl<Tx: Send + 'static> LeasedKinds<Tx> {
    #[must_use]
    pub fn with<K>(mut self) -> Self
    where
        K: LeasedOperation + Default,
        Tx: Records<K>,
    {
        self.kinds.push(Kind {
            name: K::NAME,
            provider_id_member: K::PROVIDER_ID_MEMBER,
            record: Box::new(RecordOf::<K>::new()),
        });
        self
    }
}

impl<Tx> LeasedKinds<Tx> {
    /// Every kind's name: the kinds a worker of this process claims.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds.iter().map(|kind| kind.name).collect()
    }

    /// `None` for a kind this process does not serve (written by a newer version, say).
    #[must_use]
    pub fn record(&self, kind: &str) -> Option<&dyn RecordEnd<Tx>> {
        self.find(kind).map(|kind| kind.record.as_ref())
    }

    /// The member a person names the other service's id of the work in, for `kind`.
    #[must_use]
    pub fn provider_id_member(&self, kind: &str) -> Option<&'static str> {
        self.find(kind).map(|kind| kind.provider_id_member)
    }

    fn find(&self, kind: &str) -> Option<&Kind<Tx>> {
        self.kinds.iter().find(|known| known.name == kind)
    }
}
