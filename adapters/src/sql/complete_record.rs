//! The record's completion as a statement of its own.

use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, HasSqlType, Nullable, SmallInt, Text, Timestamp};

use application::ports::StoreError;
use domain::{Completion, RecordId};

use super::bad_value::OutOfRange;
use super::rows::{COMPLETED, PROCESSING, to_i64};

/// `UPDATE ... SET state = 'COMPLETED', <response> WHERE id = ? AND state = 'PROCESSING'`.
/// Hand-written because diesel marks every DSL `UPDATE` uncacheable, which on MySQL would
/// prepare and close it on every create; with a static query id each connection
/// prepares it once.
pub(crate) struct CompleteRecord<'a> {
    pub(crate) id: i64,
    pub(crate) status: i16,
    pub(crate) content_type: &'a str,
    pub(crate) location: Option<&'a str>,
    pub(crate) body: &'a [u8],
    pub(crate) completed_at: NaiveDateTime,
    pub(crate) expires_at: NaiveDateTime,
}

impl<'a> CompleteRecord<'a> {
    pub(crate) fn of(id: RecordId, completion: &'a Completion) -> Result<Self, StoreError> {
        let response = &completion.response;
        Ok(Self {
            id: to_i64(id.0)?,
            status: i16::try_from(response.status()).map_err(|_| OutOfRange("status"))?,
            content_type: response.content_type(),
            location: response.location(),
            body: response.body(),
            completed_at: completion.completed_at.naive_utc(),
            expires_at: completion.expires_at.naive_utc(),
        })
    }
}

pub(crate) struct CompleteRecordQuery;

impl QueryId for CompleteRecord<'_> {
    type QueryId = CompleteRecordQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB> QueryFragment<DB> for CompleteRecord<'_>
where
    DB: Backend,
    i16: ToSql<SmallInt, DB>,
    i64: ToSql<BigInt, DB>,
    str: ToSql<Text, DB>,
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        update_to_completed(&mut out)?;
        set::<_, SmallInt, _>(&mut out, "response_status", &self.status)?;
        set::<_, Text, _>(&mut out, "response_content_type", self.content_type)?;
        set::<_, Nullable<Text>, _>(&mut out, "response_location", &self.location)?;
        set::<_, Binary, _>(&mut out, "response_body", self.body)?;
        set::<_, Timestamp, _>(&mut out, "completed_at", &self.completed_at)?;
        set::<_, Timestamp, _>(&mut out, "expires_at", &self.expires_at)?;
        out.push_sql(" WHERE ");
        out.push_identifier("id")?;
        out.push_sql(" = ");
        out.push_bind_param::<BigInt, _>(&self.id)?;
        out.push_sql(" AND ");
        still_processing(&mut out)
    }
}

/// `UPDATE api_idempotency SET state = 'COMPLETED'`: the start of every completion.
pub(crate) fn update_to_completed<DB: Backend>(out: &mut AstPass<'_, '_, DB>) -> QueryResult<()> {
    out.push_sql("UPDATE ");
    out.push_identifier("api_idempotency")?;
    out.push_sql(" SET ");
    out.push_identifier("state")?;
    out.push_sql(" = '");
    out.push_sql(COMPLETED);
    out.push_sql("'");
    Ok(())
}

/// `state = 'PROCESSING'`: a completion changes only a record not yet completed.
pub(crate) fn still_processing<DB: Backend>(out: &mut AstPass<'_, '_, DB>) -> QueryResult<()> {
    out.push_identifier("state")?;
    out.push_sql(" = '");
    out.push_sql(PROCESSING);
    out.push_sql("'");
    Ok(())
}

/// `, <column> = ?`: one more assignment after the first.
pub(crate) fn set<'b, DB, ST, U>(
    out: &mut AstPass<'_, 'b, DB>,
    column: &str,
    value: &'b U,
) -> QueryResult<()>
where
    DB: Backend + HasSqlType<ST>,
    U: ToSql<ST, DB> + ?Sized,
{
    out.push_sql(", ");
    out.push_identifier(column)?;
    out.push_sql(" = ");
    out.push_bind_param::<ST, U>(value)
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::sqlite::Sqlite;

    use super::*;

    fn update() -> CompleteRecord<'static> {
        let at = chrono::DateTime::UNIX_EPOCH.naive_utc();
        CompleteRecord {
            id: 7,
            status: 201,
            content_type: "application/json",
            location: None,
            body: b"{}",
            completed_at: at,
            expires_at: at,
        }
    }

    /// The text MySQL has prepared since the statement was MySQL's alone (diesel quotes
    /// SQLite identifiers the same way).
    const STATEMENT: &str = "UPDATE `api_idempotency` SET `state` = 'COMPLETED', \
        `response_status` = ?, `response_content_type` = ?, `response_location` = ?, \
        `response_body` = ?, `completed_at` = ?, `expires_at` = ? \
        WHERE `id` = ? AND `state` = 'PROCESSING' -- binds: ";

    #[test]
    fn both_backends_get_the_statement_mysql_always_had() {
        let mysql = debug_query::<Mysql, _>(&update()).to_string();
        assert!(mysql.starts_with(STATEMENT), "{mysql}");
        let sqlite = debug_query::<Sqlite, _>(&update()).to_string();
        assert!(sqlite.starts_with(STATEMENT), "{sqlite}");
    }
}
