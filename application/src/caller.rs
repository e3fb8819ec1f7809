//! The verified caller, as the HTTP edge hands it over.

use std::collections::BTreeSet;

use domain::{ActorId, TenantId};

/// Who is calling, from a verified token only: never from the body or another header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub tenant: TenantId,
    pub actor: ActorId,
    permissions: BTreeSet<String>,
}

impl Caller {
    #[must_use]
    pub fn new(tenant: TenantId, actor: ActorId, scope: &str) -> Self {
        Self {
            tenant,
            actor,
            permissions: scope.split_ascii_whitespace().map(str::to_owned).collect(),
        }
    }

    #[must_use]
    pub fn has_permission(&self, permission: &str) -> bool {
        self.permissions.contains(permission)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(scope: &str) -> Caller {
        Caller::new(
            TenantId::parse(1).unwrap(),
            ActorId::parse(2).unwrap(),
            scope,
        )
    }

    #[test]
    fn permissions_come_from_the_space_separated_scope() {
        let c = caller("orders:read  orders:create");
        assert!(c.has_permission("orders:create"));
        assert!(c.has_permission("orders:read"));
    }

    #[test]
    fn a_permission_must_match_exactly() {
        let c = caller("orders:created orders");
        assert!(!c.has_permission("orders:create"));
    }
}
