//! Replay authorization: a stored success goes only to a caller authorized *now*.

use crate::Caller;

/// Decides whether a caller may receive a stored response.
pub trait ReplayAuthorizer: Send + Sync {
    /// Whether `caller` may, at this moment, see the result of an operation that requires
    /// `permission`.
    fn may_replay(&self, caller: &Caller, permission: &str) -> bool;
}

/// Authorizes by the permissions in the caller's verified token.
#[derive(Debug, Clone, Copy, Default)]
pub struct PermissionAuthorizer;

impl ReplayAuthorizer for PermissionAuthorizer {
    fn may_replay(&self, caller: &Caller, permission: &str) -> bool {
        caller.has_permission(permission)
    }
}
