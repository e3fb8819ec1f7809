//! Tenant reads: another tenant's resource is simply not found (`docs/http-api.md#routes`).

use std::future::Future;

use domain::TenantId;

use crate::ports::StoreError;

pub trait TenantRead: Send + Sync + 'static {
    const PERMISSION: &'static str;
    /// What is read, as logs name it.
    const WHAT: &'static str;
    type Id: Send + Sync;
    type View: Send;

    fn to_json(view: &Self::View) -> Vec<u8>;

    fn poll_again(view: &Self::View) -> bool {
        let _ = view;
        false
    }
}

pub trait ReadFrom<S>: TenantRead {
    /// `None` also for another tenant's.
    ///
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find(
        store: &S,
        tenant: TenantId,
        id: Self::Id,
    ) -> impl Future<Output = Result<Option<Self::View>, StoreError>> + Send;
}

/// `R` seen from the store it reads: implemented for every store `R` reads from, so a list
/// of reads can be a store's bound (`S: Reads<ReadOrder> + Reads<ReadOperation>`).
pub trait Reads<R: TenantRead>: Send + Sync {
    fn read(
        &self,
        tenant: TenantId,
        id: R::Id,
    ) -> impl Future<Output = Result<Option<R::View>, StoreError>> + Send;
}

impl<S: Send + Sync, R: ReadFrom<S>> Reads<R> for S {
    fn read(
        &self,
        tenant: TenantId,
        id: R::Id,
    ) -> impl Future<Output = Result<Option<R::View>, StoreError>> + Send {
        R::find(self, tenant, id)
    }
}
