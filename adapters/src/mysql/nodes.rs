//! Several nodes in one `DATABASE_URL`: a new connection goes to the first that answers,
//! in order, and pooled connections are replaced after a while, so a process prefers its
//! own node and returns to it without a restart once it answers again
//! (`docs/storage.md#several-database-nodes-galera`). Also: whether a node is Galera.

use std::time::Duration;

use diesel::sql_types::Text;
use diesel::{QueryResult, QueryableByName};
use diesel_async::pooled_connection::deadpool::{Hook, HookError};
use diesel_async::{AsyncConnection, AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

/// One URL per comma-separated `host:port`, in order, each with the same credentials,
/// database and options. A URL naming one host gives just itself.
#[must_use]
pub fn node_urls(url: &str) -> Vec<String> {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let (credentials, hosts) = match authority.rsplit_once('@') {
        Some((credentials, hosts)) => (format!("{credentials}@"), hosts),
        None => (String::new(), authority),
    };
    hosts
        .split(',')
        .filter(|host| !host.is_empty())
        .map(|host| format!("{}{credentials}{host}{tail}", &url[..scheme_end]))
        .collect()
}

#[derive(QueryableByName)]
struct Variable {
    #[diesel(sql_type = Text)]
    #[diesel(column_name = Value)]
    value: String,
}

/// The first of `nodes` that also answers its session setup: a joining Galera node
/// refuses statements with 1047.
pub(super) async fn first_answering_node(
    nodes: &[String],
    lock_wait: u32,
) -> diesel::ConnectionResult<AsyncMysqlConnection> {
    let setup = format!("SET SESSION innodb_lock_wait_timeout = {lock_wait}");
    let mut last_error = diesel::ConnectionError::BadConnection("no database node".to_owned());
    for node in nodes {
        match AsyncMysqlConnection::establish(node).await {
            Ok(mut conn) => match conn.batch_execute(&setup).await {
                Ok(()) => return Ok(conn),
                Err(error) => {
                    last_error = diesel::ConnectionError::CouldntSetupConfiguration(error);
                }
            },
            Err(error) => last_error = error,
        }
    }
    Err(last_error)
}

/// Retires a pooled connection older than `after` when it is next taken from the pool
/// (the pool then takes another, or opens one to the first node that answers). Which node
/// a connection went to is not known to the pool, so every connection is replaced; at the
/// default of a minute that is one reconnect per connection per minute.
pub(super) fn retire_after(after: Duration) -> Hook<AsyncMysqlConnection> {
    Hook::sync_fn(move |_conn, metrics| {
        if metrics.age() >= after {
            Err(HookError::message(
                "retired: the next connection goes to the first node that answers",
            ))
        } else {
            Ok(())
        }
    })
}

/// MariaDB always has `wsrep_on`; MySQL has none, which reads as no.
pub(super) async fn is_galera_node(conn: &mut AsyncMysqlConnection) -> QueryResult<bool> {
    let rows: Vec<Variable> = diesel::sql_query("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")
        .load(conn)
        .await?;
    Ok(rows.iter().any(|row| row.value.eq_ignore_ascii_case("ON")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_host_is_the_url_itself() {
        let url = "mysql://u:p@h:3306/db?prefer_socket=false";
        assert_eq!(node_urls(url), [url]);
    }

    #[test]
    fn a_host_list_becomes_one_url_per_node_in_order() {
        assert_eq!(
            node_urls("mysql://app:se,cret@n1:1,n2:2,n3:3/orders?prefer_socket=false"),
            [
                "mysql://app:se,cret@n1:1/orders?prefer_socket=false",
                "mysql://app:se,cret@n2:2/orders?prefer_socket=false",
                "mysql://app:se,cret@n3:3/orders?prefer_socket=false",
            ]
        );
        assert_eq!(
            node_urls("mysql://n1:1,n2:2"),
            ["mysql://n1:1", "mysql://n2:2"]
        );
    }
}
