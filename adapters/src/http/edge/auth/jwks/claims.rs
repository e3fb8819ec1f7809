//! What a provider's token says, read into a caller: providers name the tenant and the
//! permissions differently (`docs/http-api.md#tokens-from-an-identity-provider`).

use application::Caller;
use domain::{ActorId, TenantId};
use serde_json::{Map, Value};

use super::super::{AuthError, is_canonical_decimal};

/// Which claims hold what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimNames {
    /// `AUTH_TENANT_CLAIM`: a JSON number or a decimal string.
    pub tenant: String,
}

impl Default for ClaimNames {
    fn default() -> Self {
        Self {
            tenant: "tid".to_owned(),
        }
    }
}

fn decimal(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) if is_canonical_decimal(text) => text.parse().ok(),
        _ => None,
    }
}

/// `scope` (space-separated, as RFC 6749 spells it) or `scp` (an array of strings, each
/// one permission: an element holding a space would grant two).
fn scope(claims: &Map<String, Value>) -> Option<String> {
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => Some(scope.clone()),
        (None, Some(Value::Array(items))) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .filter(|one| !one.is_empty() && !one.contains(char::is_whitespace))
                    .map(str::to_owned)
            })
            .collect::<Option<Vec<_>>>()
            .map(|items| items.join(" ")),
        (None, None) => Some(String::new()),
        _ => None,
    }
}

/// # Errors
/// [`AuthError::Invalid`] when the actor, the tenant or the permissions cannot be read.
pub(super) fn caller(claims: &Map<String, Value>, names: &ClaimNames) -> Result<Caller, AuthError> {
    let actor = match claims.get("sub") {
        Some(Value::String(sub)) if is_canonical_decimal(sub) => sub.parse().ok(),
        _ => None,
    }
    .and_then(|id| ActorId::parse(id).ok())
    .ok_or(AuthError::Invalid)?;
    let tenant = claims
        .get(&names.tenant)
        .and_then(decimal)
        .and_then(|id| TenantId::parse(id).ok())
        .ok_or(AuthError::Invalid)?;
    let scope = scope(claims).ok_or(AuthError::Invalid)?;
    Ok(Caller::new(tenant, actor, &scope))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(claims: Value, tenant: &str) -> Result<Caller, AuthError> {
        let names = ClaimNames {
            tenant: tenant.to_owned(),
        };
        caller(claims.as_object().unwrap(), &names)
    }

    #[test]
    fn the_tenant_is_a_number_or_a_decimal_string_under_its_configured_name() {
        for tenant in [json!(7), json!("7")] {
            let caller = read(json!({"sub": "42", "org": tenant, "scope": "a b"}), "org").unwrap();
            assert_eq!((caller.tenant.get(), caller.actor.get()), (7, 42));
            assert!(caller.has_permission("b"));
        }
        for bad in [
            json!("07"),
            json!(-1),
            json!(0),
            json!(1.5),
            json!("x"),
            json!(null),
        ] {
            assert_eq!(
                read(json!({"sub": "1", "tid": bad}), "tid"),
                Err(AuthError::Invalid),
                "{bad}"
            );
        }
    }

    #[test]
    fn permissions_come_from_scope_or_an_scp_array() {
        let caller = read(
            json!({"sub": "1", "tid": 1, "scp": ["orders:read", "x"]}),
            "tid",
        );
        assert!(caller.unwrap().has_permission("orders:read"));
        for bad in [
            json!(["a", 1]),
            json!(["orders:read admin:read"]),
            json!([""]),
        ] {
            assert_eq!(
                read(json!({"sub": "1", "tid": 1, "scp": bad}), "tid"),
                Err(AuthError::Invalid),
                "{bad}"
            );
        }
        let none = read(json!({"sub": "1", "tid": 1}), "tid").unwrap();
        assert!(!none.has_permission("orders:read"));
    }

    #[test]
    fn the_actor_is_a_canonical_decimal_sub() {
        for bad in [json!("0"), json!("042"), json!(42), json!("a")] {
            assert_eq!(
                read(json!({"sub": bad, "tid": 1}), "tid"),
                Err(AuthError::Invalid)
            );
        }
    }
}
