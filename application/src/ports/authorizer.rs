//! Replay authorization: a stored success goes only to a caller authorized *now*.

use crate::Caller;

pub trait ReplayAuthorizer: Send + Sync {
    fn may_replay(&self, caller: &Caller, permission: &str) -> bool;
}

#[derive(Debug, Clone, Copy, Default)]
pub struct PermissionAuthorizer;

impl ReplayAuthorizer for PermissionAuthorizer {
    fn may_replay(&self, caller: &Caller, permission: &str) -> bool {
        caller.has_permission(permission)
    }
}
