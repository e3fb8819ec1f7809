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
    /// `scope` is split on U+0020 alone, as RFC 6749 (§3.3) spells a scope.
    pub fn new(tenant: TenantId, actor: ActorId, scope: &str) -> Self {
        Self {
            tenant,
            actor,
            permissions: scope
                .split(' ')
                .filter(|permission| !permission.is_empty())
                .map(str::to_owned)
                .collect(),
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
    fn only_a_space_separates_permissions() {
        for separator in ["\t", "\n", "\r", "\u{c}"] {
            let c = caller(&format!("orders:read{separator}orders:create"));
            assert!(!c.has_permission("orders:create"), "{separator:?}");
        }
    }

    #[test]
    fn a_permission_must_match_exactly() {
        let c = caller("orders:created orders");
        assert!(!c.has_permission("orders:create"));
    }
}
