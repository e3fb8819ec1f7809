//! A kind's steps seen from the transaction and the service they run on, so that a list of
//! kinds can be a store's bound (`Tx: Records<CapturePayment> + ...`) and every port the
//! kind needs is named once, where the kind implements its step.

use std::future::Future;

use super::operation::{
    CallOut, Definite, Ended, LeasedOperation, NoAnswer, ProviderAnswer, RecordOutcome, Work,
};
use crate::ports::StoreError;

/// A transaction with the ports `K`'s record step writes through.
pub trait Records<K: LeasedOperation>: Send {
    fn record(
        &mut self,
        kind: &K,
        ended: &Ended<'_, K::Job>,
    ) -> impl Future<Output = Result<Option<K::Result>, StoreError>> + Send;
}

impl<Tx: Send, K: RecordOutcome<Tx>> Records<K> for Tx {
    fn record(
        &mut self,
        kind: &K,
        ended: &Ended<'_, K::Job>,
    ) -> impl Future<Output = Result<Option<K::Result>, StoreError>> + Send {
        kind.record(self, ended)
    }
}

/// A service `K` calls.
pub trait Calls<K: LeasedOperation>: Send + Sync {
    fn call(
        &self,
        kind: &K,
        work: &Work<'_, K::Job>,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    fn look_up(
        &self,
        kind: &K,
        work: &Work<'_, K::Job>,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;
}

impl<P: Send + Sync, K: CallOut<P>> Calls<K> for P {
    fn call(
        &self,
        kind: &K,
        work: &Work<'_, K::Job>,
    ) -> impl Future<Output = ProviderAnswer> + Send {
        kind.call(self, work)
    }

    fn look_up(
        &self,
        kind: &K,
        work: &Work<'_, K::Job>,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send {
        kind.look_up(self, work)
    }
}
