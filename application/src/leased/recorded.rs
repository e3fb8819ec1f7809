//! A kind's record step as the stores run it, without knowing the kind: the job comes as
//! stored (JSON), the result goes back as the members the status read shows.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use uuid::Uuid;

use super::forwarding::Records;
use super::operation::{Ended, EndedAs, LeasedOperation};
use crate::ports::StoreError;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An operation ending definitely, as a store reads it: its job still in its stored form.
#[derive(Debug, Clone, Copy)]
pub struct StoredEnd<'a> {
    pub id: Uuid,
    pub tenant: TenantId,
    pub order: OrderId,
    pub input: &'a [u8],
    pub outcome: EndedAs<'a>,
    pub at: DateTime<Utc>,
}

/// A kind's record step on the transaction `Tx`, for a store that meets the kind by name.
pub trait RecordEnd<Tx>: Send + Sync {
    /// The kind's writes, then the members the status read shows (`{"payment":{...}}`), if
    /// the end has a result.
    fn record<'a>(
        &'a self,
        tx: &'a mut Tx,
        end: StoredEnd<'a>,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;
}

/// The record step of the kind `K`, for any transaction with the ports it writes through.
#[derive(Debug)]
pub struct RecordOf<K>(PhantomData<fn() -> K>);

impl<K> RecordOf<K> {
    #[must_use]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<K> Default for RecordOf<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, Tx> RecordEnd<Tx> for RecordOf<K>
where
    K: LeasedOperation + Default,
    Tx: Records<K> + Send,
{
    fn record<'a>(
        &'a self,
        tx: &'a mut Tx,
        end: StoredEnd<'a>,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let job: K::Job = decode_job(end.input)?;
            let ended = Ended {
                id: end.id,
                tenant: end.tenant,
                order: end.order,
                job: &job,
                outcome: end.outcome,
                at: end.at,
            };
            let result = tx.record(&K::default(), &ended).await?;
            result.map(|result| shown::<K>(Some(&result))).transpose()
        })
    }
}

/// A job as stored; one that no longer reads is corrupt and says so.
///
/// # Errors
/// [`StoreError::Other`] with [`UnreadableInput`].
pub fn decode_job<J: serde::de::DeserializeOwned>(input: &[u8]) -> Result<J, StoreError> {
    serde_json::from_slice(input)
        .map_err(|error| StoreError::Other(Box::new(UnreadableInput(error))))
}

/// The stored input of an operation does not read as its kind's job.
#[derive(Debug, thiserror::Error)]
#[error("the operation's stored input does not read as its kind's job")]
pub struct UnreadableInput(#[source] serde_json::Error);

/// The members the status read shows for `result`: `{"<RESULT_MEMBER>": result or null}`.
///
/// # Errors
/// [`StoreError::Other`] when the result does not serialize (a bug in the kind).
pub fn shown<K: LeasedOperation>(result: Option<&K::Result>) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(&std::collections::BTreeMap::from([(
        K::RESULT_MEMBER,
        result,
    )]))
    .map_err(|error| StoreError::Other(Box::new(error)))
}
