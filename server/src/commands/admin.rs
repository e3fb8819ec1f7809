//! `server admin ...`: the admin use cases against the database directly, for when the
//! HTTP side is down. Arguments pass the same checks as the HTTP route's query, the answer
//! is the same JSON, and every change's audit row names `--operator`.

use adapters::SystemClock;
use adapters::admin::{audit_query, key_query, operations_query, parse_operation_id};
use adapters::api::{ServiceStore, leased_kinds};
use anyhow::Context;
use application::admin::{
    Admin, AdminRefusal, AdminRequest, AdminScope, OperatorName, Who, audit_page_json, key_json,
    operation_json, operations_page_json,
};
use chrono::TimeDelta;
use domain::{OperatorAction, ProviderId, Resolution};
use uuid::Uuid;

use crate::cli::{AdminArgs, AdminCommand, KeyArgs, KeysCommand, OperationsCommand, PageArgs};

/// Why an admin command changed nothing; the exit status is non-zero.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    #[error("refused: {0}")]
    Admin(#[source] AdminRefusal),
    #[error("{0}: not an operation id (a hyphenated UUID)")]
    BadId(&'static str),
}

impl From<AdminRefusal> for Refused {
    fn from(refusal: AdminRefusal) -> Self {
        Self::Admin(refusal)
    }
}

/// The query string the HTTP route would get for these arguments.
fn query<'a>(pairs: impl IntoIterator<Item = (&'static str, Option<&'a str>)>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        if let Some(value) = value {
            query.append_pair(name, value);
        }
    }
    query.finish()
}

fn page_pairs(page: &PageArgs) -> [(&'static str, Option<&str>); 2] {
    [
        ("cursor", page.cursor.as_deref()),
        ("limit", page.limit.as_deref()),
    ]
}

fn key_pairs(key: &KeyArgs) -> [(&'static str, Option<&str>); 4] {
    [
        ("tenant", Some(key.tenant.as_str())),
        ("actor", Some(key.actor.as_str())),
        ("operation", Some(key.operation.as_str())),
        ("key", Some(key.key.as_str())),
    ]
}

fn operation_id(raw: &str) -> Result<Uuid, Refused> {
    parse_operation_id(raw).ok_or(Refused::BadId("ID"))
}

/// Runs one admin command; `Ok` is the JSON to print.
pub(crate) async fn run<S: ServiceStore>(
    store: &S,
    key_retention: TimeDelta,
    args: AdminArgs,
) -> anyhow::Result<Vec<u8>> {
    let operator = args
        .operator
        .as_deref()
        .context("--operator is required: the audit trail names who made each change")?;
    let operator = OperatorName::parse(operator).context("--operator")?;
    let kinds = leased_kinds();
    let admin = Admin {
        store,
        kinds: &kinds,
        clock: &SystemClock,
        key_retention,
        replay_cache: None,
    };
    // The database's operator sees every tenant.
    let scope = AdminScope::AllTenants;
    let request = AdminRequest {
        scope,
        who: Who::Operator(operator),
        request_id: Uuid::new_v4().hyphenated().to_string(),
    };
    let act = async |id: &str, action: OperatorAction| {
        let id = operation_id(id)?;
        Ok::<_, anyhow::Error>(operation_json(
            &admin
                .act(&request, id, &action)
                .await
                .map_err(Refused::from)?,
        ))
    };
    match args.command {
        AdminCommand::Operations { command } => match command {
            OperationsCommand::List {
                state,
                operation_type,
                tenant,
                accepted_before,
                accepted_after,
                page,
            } => {
                let [cursor, limit] = page_pairs(&page);
                let query = operations_query(&query([
                    ("state", state.as_deref()),
                    ("type", operation_type.as_deref()),
                    ("tenant", tenant.as_deref()),
                    ("acceptedBefore", accepted_before.as_deref()),
                    ("acceptedAfter", accepted_after.as_deref()),
                    cursor,
                    limit,
                ]))?;
                let page = admin
                    .list_operations(scope, &query.filter, query.cursor, query.limit)
                    .await?;
                Ok(operations_page_json(&page))
            }
            OperationsCommand::Show { id } => {
                let shown = admin
                    .show_operation(scope, operation_id(&id)?)
                    .await
                    .map_err(Refused::from)?;
                Ok(operation_json(&shown))
            }
            OperationsCommand::Resolve { id, charge, .. } => {
                let resolution = match charge {
                    Some(id) => Resolution::Succeeded(ProviderId::parse(&id).context("--charge")?),
                    None => Resolution::Declined,
                };
                act(&id, OperatorAction::Resolve(resolution)).await
            }
            OperationsCommand::Retry { id } => act(&id, OperatorAction::Retry).await,
            OperationsCommand::Cancel { id } => act(&id, OperatorAction::Cancel).await,
        },
        AdminCommand::Keys { command } => match command {
            KeysCommand::Show(key) => {
                let address = key_query(&query(key_pairs(&key)))?;
                let shown = admin
                    .show_key(scope, &address)
                    .await
                    .map_err(Refused::from)?;
                Ok(key_json(&shown))
            }
            KeysCommand::Evict(key) => {
                let address = key_query(&query(key_pairs(&key)))?;
                let evicted = admin
                    .evict_key(&request, &address)
                    .await
                    .map_err(Refused::from)?;
                Ok(key_json(&evicted))
            }
        },
        AdminCommand::Audit(page) => {
            let (cursor, limit) = audit_query(&query(page_pairs(&page)))?;
            Ok(audit_page_json(
                &admin.list_audit(scope, cursor, limit).await?,
            ))
        }
    }
}
