//! Audit rows as written and as read back.

use application::admin::{AuditEntry, AuditEvent, OperatorName, Who};
use application::ports::StoreError;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use domain::{ActorId, TenantId};

use crate::sql::bad_value::bad_row;
use crate::sql::rows::to_i64;
use crate::sql::schema::audit_events;

#[derive(Insertable)]
#[diesel(table_name = audit_events)]
pub(crate) struct NewAuditRow<'a> {
    occurred_at: NaiveDateTime,
    actor_tenant_id: Option<i64>,
    actor_id: Option<i64>,
    operator: Option<&'a [u8]>,
    action: &'a str,
    target_type: &'a str,
    target_id: &'a [u8],
    target_tenant_id: i64,
    state_before: &'a str,
    state_after: &'a str,
    request_id: &'a [u8],
}

impl<'a> NewAuditRow<'a> {
    pub(crate) fn of(entry: &'a AuditEntry) -> Result<Self, StoreError> {
        let (actor_tenant_id, actor_id, operator) = match &entry.who {
            Who::Caller { tenant, actor } => (
                Some(to_i64(tenant.get())?),
                Some(to_i64(actor.get())?),
                None,
            ),
            Who::Operator(name) => (None, None, Some(name.as_str().as_bytes())),
        };
        Ok(Self {
            occurred_at: entry.at.naive_utc(),
            actor_tenant_id,
            actor_id,
            operator,
            action: entry.action,
            target_type: entry.target.kind,
            target_id: entry.target.id.as_bytes(),
            target_tenant_id: to_i64(entry.target.tenant.get())?,
            state_before: entry.before,
            state_after: entry.after,
            request_id: entry.request_id.as_bytes(),
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = audit_events)]
pub(crate) struct AuditRow {
    id: i64,
    occurred_at: NaiveDateTime,
    actor_tenant_id: Option<i64>,
    actor_id: Option<i64>,
    operator: Option<Vec<u8>>,
    action: String,
    target_type: String,
    target_id: Vec<u8>,
    target_tenant_id: i64,
    state_before: String,
    state_after: String,
    request_id: Vec<u8>,
}

fn positive(raw: i64) -> Option<u64> {
    u64::try_from(raw).ok()
}

impl AuditRow {
    pub(crate) fn into_event(self) -> Result<AuditEvent, StoreError> {
        let corrupt = |column| bad_row("audit_events", column);
        let text = |bytes: Vec<u8>, column| String::from_utf8(bytes).map_err(|_| corrupt(column));
        let who = match (self.actor_tenant_id, self.actor_id, self.operator) {
            (Some(tenant), Some(actor), None) => Who::Caller {
                tenant: positive(tenant)
                    .and_then(|id| TenantId::parse(id).ok())
                    .ok_or_else(|| corrupt("actor tenant"))?,
                actor: positive(actor)
                    .and_then(|id| ActorId::parse(id).ok())
                    .ok_or_else(|| corrupt("actor"))?,
            },
            (None, None, Some(name)) => Who::Operator(
                std::str::from_utf8(&name)
                    .ok()
                    .and_then(|name| OperatorName::parse(name).ok())
                    .ok_or_else(|| corrupt("operator"))?,
            ),
            _ => return Err(corrupt("who")),
        };
        Ok(AuditEvent {
            id: positive(self.id).ok_or_else(|| corrupt("id"))?,
            at: self.occurred_at.and_utc(),
            who,
            action: self.action,
            target_kind: self.target_type,
            target_id: text(self.target_id, "target id")?,
            target_tenant: positive(self.target_tenant_id)
                .and_then(|id| TenantId::parse(id).ok())
                .ok_or_else(|| corrupt("target tenant"))?,
            before: self.state_before,
            after: self.state_after,
            request_id: text(self.request_id, "request id")?,
        })
    }
}
