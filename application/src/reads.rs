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
