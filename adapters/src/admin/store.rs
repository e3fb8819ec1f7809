//! The admin's store on both stores: listings built from the filters given (boxed
//! queries, newest first), single reads, and writes in one transaction with their audit row.

use application::admin::{
    AdminOperation, AdminScope, AdminStore, AuditCursor, AuditEntry, AuditEvent, ChangeOutcome,
    KeyAddress, KeyRecordView, KeyState, OperationChange, OperationCursor, OperationFilter,
    Recording,
};
use application::ports::{StoreError, UnitOfWork};
use diesel::dsl;
use diesel::prelude::*;
use uuid::Uuid;

use super::audit_rows::AuditRow;
use super::operation_rows::{admin_operations, operation_view};
use super::reads::load_rows;
use super::writes::{change_operation, evict_completed, insert_audit};
use crate::leased::record_end;
use crate::sql::bad_value::bad_row;
use crate::sql::both_stores::for_both_stores;
use crate::sql::commit_if::commit_if;
use crate::sql::rows::{COMPLETED, PROCESSING, to_i64};
use crate::sql::schema::{api_idempotency, audit_events, operations};

/// The record's metadata: never its stored response.
#[dsl::auto_type]
fn key_metadata(tenant: i64, actor: i64, operation: Vec<u8>, key: Vec<u8>) -> _ {
    api_idempotency::table
        .filter(
            api_idempotency::tenant_id
                .eq(tenant)
                .and(api_idempotency::actor_id.eq(actor))
                .and(api_idempotency::operation.eq(operation))
                .and(api_idempotency::idempotency_key.eq(key)),
        )
        .select((
            api_idempotency::state,
            api_idempotency::fingerprint_version,
            api_idempotency::request_hash,
            api_idempotency::created_at,
            api_idempotency::expires_at,
            api_idempotency::response_status,
            api_idempotency::response_location,
        ))
}

type KeyColumns = (
    String,
    i16,
    Vec<u8>,
    chrono::NaiveDateTime,
    Option<chrono::NaiveDateTime>,
    Option<i16>,
    Option<String>,
);

/// The operation a stored `Location: /api/operations/{id}` points to.
fn operation_of(location: Option<&str>) -> Option<Uuid> {
    let id = location?.strip_prefix("/api/operations/")?;
    Uuid::try_parse(id).ok()
}

fn key_view(address: &KeyAddress, row: KeyColumns) -> Result<KeyRecordView, StoreError> {
    let corrupt = |column| bad_row("api_idempotency", column);
    let (state, version, hash, created_at, expires_at, status, location) = row;
    Ok(KeyRecordView {
        address: address.clone(),
        state: match state.as_str() {
            PROCESSING => KeyState::Processing,
            COMPLETED => KeyState::Completed,
            _ => return Err(corrupt("state")),
        },
        fingerprint_version: u16::try_from(version).map_err(|_| corrupt("fingerprint version"))?,
        fingerprint: hash,
        created_at: created_at.and_utc(),
        expires_at: expires_at.map(|at| at.and_utc()),
        response_status: status
            .map(u16::try_from)
            .transpose()
            .map_err(|_| corrupt("response status"))?,
        operation: operation_of(location.as_deref()),
    })
}

fn tenant_of(scope: AdminScope) -> Result<Option<i64>, StoreError> {
    scope
        .tenant()
        .map(|tenant| to_i64(tenant.get()))
        .transpose()
}

for_both_stores! {
    impl AdminStore {
        async fn list_operations(
            &self,
            scope: AdminScope,
            filter: &OperationFilter,
            after: Option<OperationCursor>,
            limit: usize,
        ) -> Result<Vec<AdminOperation>, StoreError> {
            let mut query = admin_operations().into_boxed();
            for tenant in [tenant_of(scope)?, filter.tenant.map(|t| to_i64(t.get())).transpose()?]
                .into_iter()
                .flatten()
            {
                query = query.filter(operations::tenant_id.eq(tenant));
            }
            if let Some(state) = filter.state {
                query = query.filter(operations::state.eq(state.as_stored()));
            }
            if let Some(kind) = &filter.operation_type {
                query = query.filter(operations::operation_type.eq(kind.as_bytes().to_vec()));
            }
            if let Some(before) = filter.accepted_before {
                query = query.filter(operations::created_at.lt(before.naive_utc()));
            }
            if let Some(since) = filter.accepted_after {
                query = query.filter(operations::created_at.ge(since.naive_utc()));
            }
            if let Some(cursor) = after {
                let at = cursor.accepted_at.naive_utc();
                query = query.filter(
                    operations::created_at.lt(at).or(operations::created_at
                        .eq(at)
                        .and(operations::id.lt(cursor.id.as_bytes().to_vec()))),
                );
            }
            let query = query
                .order((operations::created_at.desc(), operations::id.desc()))
                .limit(i64::try_from(limit).unwrap_or(i64::MAX));
            self.with_connection("admin operations list", async |conn| {
                load_rows(conn, query).await
            })
            .await?
            .into_iter()
            .map(operation_view)
            .collect()
        }

        async fn find_operation(
            &self,
            scope: AdminScope,
            id: Uuid,
        ) -> Result<Option<AdminOperation>, StoreError> {
            let mut query = admin_operations()
                .filter(operations::id.eq(id.as_bytes().to_vec()))
                .into_boxed();
            if let Some(tenant) = tenant_of(scope)? {
                query = query.filter(operations::tenant_id.eq(tenant));
            }
            self.find_one("admin operation read", query.limit(1), operation_view)
                .await
        }

        async fn change_operation(
            &self,
            change: &OperationChange<'_>,
            audit: &AuditEntry,
            recording: Option<Recording<'_, Self::Tx>>,
        ) -> Result<ChangeOutcome, StoreError> {
            let mut tx = self.begin().await?;
            let outcome = tx
                .run("operator change", async |conn, _| change_operation(conn, change).await)
                .await?;
            let changed = outcome == ChangeOutcome::Changed;
            if changed {
                if let Some(Recording { step, end }) = recording {
                    record_end(&mut tx, step, end).await?;
                }
                tx.run("audit insert", async |conn, _| insert_audit(conn, audit).await)
                    .await?;
            }
            commit_if(tx, changed).await?;
            Ok(outcome)
        }

        async fn find_key(&self, address: &KeyAddress) -> Result<Option<KeyRecordView>, StoreError> {
            let query = key_metadata(
                to_i64(address.tenant.get())?,
                to_i64(address.actor.get())?,
                address.operation.as_str().as_bytes().to_vec(),
                address.key.as_str().as_bytes().to_vec(),
            )
            .limit(1);
            let found: Option<KeyColumns> =
                self.find_one("admin key read", query, Ok).await?;
            found.map(|row| key_view(address, row)).transpose()
        }

        async fn evict_key(&self, address: &KeyAddress, audit: &AuditEntry) -> Result<bool, StoreError> {
            let mut tx = self.begin().await?;
            let evicted = tx
                .run("key eviction", async |conn, _| {
                    if !evict_completed(conn, address).await? {
                        return Ok(false);
                    }
                    insert_audit(conn, audit).await.map(|()| true)
                })
                .await?;
            commit_if(tx, evicted).await
        }

        async fn list_audit(
            &self,
            scope: AdminScope,
            after: Option<AuditCursor>,
            limit: usize,
        ) -> Result<Vec<AuditEvent>, StoreError> {
            let mut query = audit_events::table
                .select(AuditRow::as_select())
                .into_boxed();
            if let Some(tenant) = tenant_of(scope)? {
                query = query.filter(audit_events::target_tenant_id.eq(tenant));
            }
            if let Some(AuditCursor(id)) = after {
                query = query.filter(audit_events::id.lt(i64::try_from(id).unwrap_or(i64::MAX)));
            }
            let query = query
                .order(audit_events::id.desc())
                .limit(i64::try_from(limit).unwrap_or(i64::MAX));
            self.with_connection("audit list", async |conn| load_rows(conn, query).await)
                .await?
                .into_iter()
                .map(AuditRow::into_event)
                .collect()
        }
    }
}
