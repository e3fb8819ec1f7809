//! Whose operations an admin sees, and who is named in the audit trail for a change.

use domain::{ActorId, TenantId};

use crate::Caller;

/// Grants reads of every tenant's operations, keys and audit rows; without it an admin acts
/// only in its token's tenant, and another tenant's resource is not found.
pub const ALL_TENANTS: &str = "admin:all-tenants";
pub const ADMIN_READ: &str = "admin:read";
pub const ADMIN_WRITE: &str = "admin:write";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminScope {
    Tenant(TenantId),
    AllTenants,
}

impl AdminScope {
    #[must_use]
    pub fn of(caller: &Caller) -> Self {
        if caller.has_permission(ALL_TENANTS) {
            Self::AllTenants
        } else {
            Self::Tenant(caller.tenant)
        }
    }

    /// `None`: every tenant.
    #[must_use]
    pub fn tenant(self) -> Option<TenantId> {
        match self {
            Self::Tenant(tenant) => Some(tenant),
            Self::AllTenants => None,
        }
    }

    #[must_use]
    pub fn covers(self, tenant: TenantId) -> bool {
        self.tenant().is_none_or(|own| own == tenant)
    }
}

/// A person's name as the command line gives it: printable ASCII without spaces, such as
/// an e-mail address or a login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorName(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an operator is 1 to 128 printable ASCII characters without spaces")]
pub struct BadOperatorName;

impl OperatorName {
    /// # Errors
    /// [`BadOperatorName`] for an empty, long or unprintable name.
    pub fn parse(raw: &str) -> Result<Self, BadOperatorName> {
        let printable = raw.bytes().all(|b| b.is_ascii_graphic());
        if printable && (1..=128).contains(&raw.len()) {
            Ok(Self(raw.to_owned()))
        } else {
            Err(BadOperatorName)
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Who made a change: a token's tenant and actor, or the operator named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    Caller { tenant: TenantId, actor: ActorId },
    Operator(OperatorName),
}

impl From<&Caller> for Who {
    fn from(caller: &Caller) -> Self {
        Self::Caller {
            tenant: caller.tenant,
            actor: caller.actor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(scope: &str) -> Caller {
        Caller::new(
            TenantId::parse(7).unwrap(),
            ActorId::parse(1).unwrap(),
            scope,
        )
    }

    #[test]
    fn only_the_all_tenants_permission_reaches_beyond_the_tokens_tenant() {
        let own = AdminScope::of(&caller("admin:read admin:write"));
        assert_eq!(own, AdminScope::Tenant(TenantId::parse(7).unwrap()));
        assert!(own.covers(TenantId::parse(7).unwrap()));
        assert!(!own.covers(TenantId::parse(8).unwrap()));
        let all = AdminScope::of(&caller("admin:read admin:all-tenants"));
        assert!(all.covers(TenantId::parse(8).unwrap()));
    }

    #[test]
    fn operator_names_are_printable_without_spaces() {
        assert_eq!(
            OperatorName::parse("alice@example.com").map(|name| name.as_str().to_owned()),
            Ok("alice@example.com".to_owned())
        );
        for bad in ["", "al ice", "bob\n", "\u{e9}ve"] {
            assert_eq!(OperatorName::parse(bad), Err(BadOperatorName), "{bad:?}");
        }
        assert!(OperatorName::parse(&"a".repeat(129)).is_err());
    }
}
