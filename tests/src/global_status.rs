//! The database server's own counters (`SHOW GLOBAL STATUS`), the figures the statement
//! cost test and the benchmark judge cost by.

use std::collections::HashMap;

use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text)]
    #[diesel(column_name = Variable_name)]
    name: String,
    #[diesel(sql_type = Text)]
    #[diesel(column_name = Value)]
    value: String,
}

/// The server-wide counters `names`, by name. The reading is itself one statement
/// (prepared, executed and closed: one `Questions`, `Com_stmt_prepare`,
/// `Com_stmt_execute` and `Com_stmt_close` each), which callers subtract.
///
/// # Panics
/// When the server cannot be asked, or a counter is not a number.
pub async fn global_status(
    conn: &mut AsyncMysqlConnection,
    names: &[&str],
) -> HashMap<String, u64> {
    let list = names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let rows: Vec<Status> = diesel::sql_query(format!(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
    ))
    .load(conn)
    .await
    .expect("SHOW GLOBAL STATUS");
    rows.into_iter()
        .map(|row| {
            let value = row.value.parse().expect("a counter is a number");
            (row.name, value)
        })
        .collect()
}
