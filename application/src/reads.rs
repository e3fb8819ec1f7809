//! Reads of one resource of the caller's tenant: one permission each, and another
//! tenant's resource is simply not found (`docs/http-api.md#routes`).

use std::future::Future;

use domain::TenantId;

use crate::ports::StoreError;

/// What a read is, whatever store it reads from.
pub trait TenantRead: Send + Sync + 'static {
    /// The permission a caller needs.
    const PERMISSION: &'static str;
    /// What is read, as logs name it.
    const WHAT: &'static str;
    /// What names one resource.
    type Id: Send + Sync;
    /// The resource as read.
    type View: Send;

    /// The view's JSON document.
    fn to_json(view: &Self::View) -> Vec<u8>;

    /// Whether the resource is still changing, so the client should poll again.
    fn poll_again(view: &Self::View) -> bool {
        let _ = view;
        false
    }
}

/// The read itself, from the store `S`.
pub trait ReadFrom<S>: TenantRead {
    /// The resource with this id in this tenant; `None` also when it is another tenant's.
    ///
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find(
        store: &S,
        tenant: TenantId,
        id: Self::Id,
    ) -> impl Future<Output = Result<Option<Self::View>, StoreError>> + Send;
}
