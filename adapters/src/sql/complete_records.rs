//! A batch's completions as one statement: `UPDATE ... SET <column> = CASE id WHEN ? THEN ?
//! ... END, ... WHERE state = 'PROCESSING' AND id IN (...)`, the same SQL on both stores.

use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, HasSqlType, Nullable, SmallInt, Text, Timestamp};

use super::complete_record::{CompleteRecord, still_processing, update_to_completed};

/// Cached by its text, which depends only on how many records it completes.
pub(crate) struct CompleteRecords<'a>(pub(crate) Vec<CompleteRecord<'a>>);

impl QueryId for CompleteRecords<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB> QueryFragment<DB> for CompleteRecords<'_>
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
        self.case::<_, SmallInt, _>(&mut out, "response_status", |r| &r.status)?;
        self.case::<_, Text, _>(&mut out, "response_content_type", |r| r.content_type)?;
        self.case::<_, Nullable<Text>, _>(&mut out, "response_location", |r| &r.location)?;
        self.case::<_, Binary, _>(&mut out, "response_body", |r| r.body)?;
        self.case::<_, Timestamp, _>(&mut out, "completed_at", |r| &r.completed_at)?;
        self.case::<_, Timestamp, _>(&mut out, "expires_at", |r| &r.expires_at)?;
        out.push_sql(" WHERE ");
        still_processing(&mut out)?;
        out.push_sql(" AND ");
        out.push_identifier("id")?;
        out.push_sql(" IN (");
        for (n, record) in self.0.iter().enumerate() {
            if n > 0 {
                out.push_sql(", ");
            }
            out.push_bind_param::<BigInt, _>(&record.id)?;
        }
        out.push_sql(")");
        Ok(())
    }
}

impl<'a> CompleteRecords<'a> {
    /// `, <column> = CASE id WHEN ? THEN ? ... END`.
    fn case<'b, DB, ST, U>(
        &'b self,
        out: &mut AstPass<'_, 'b, DB>,
        column: &str,
        value: impl Fn(&'b CompleteRecord<'a>) -> &'b U,
    ) -> QueryResult<()>
    where
        DB: Backend + HasSqlType<ST>,
        U: ToSql<ST, DB> + ?Sized + 'b,
        i64: ToSql<BigInt, DB>,
    {
        out.push_sql(", ");
        out.push_identifier(column)?;
        out.push_sql(" = CASE ");
        out.push_identifier("id")?;
        for record in &self.0 {
            out.push_sql(" WHEN ");
            out.push_bind_param::<BigInt, _>(&record.id)?;
            out.push_sql(" THEN ");
            out.push_bind_param::<ST, U>(value(record))?;
        }
        out.push_sql(" END");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::sqlite::Sqlite;

    use super::*;

    fn record(id: i64, body: &'static [u8]) -> CompleteRecord<'static> {
        let at = chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        CompleteRecord {
            id,
            status: 201,
            content_type: "application/json",
            location: None,
            body,
            completed_at: at,
            expires_at: at,
        }
    }

    #[test]
    fn each_record_gets_its_own_answer_and_only_processing_records_change() {
        let update = CompleteRecords(vec![record(7, b"a"), record(9, b"b")]);
        let sql = debug_query::<Mysql, _>(&update).to_string();
        assert!(
            sql.starts_with(
                "UPDATE `api_idempotency` SET `state` = 'COMPLETED', `response_status` = \
                 CASE `id` WHEN ? THEN ? WHEN ? THEN ? END, "
            ),
            "{sql}"
        );
        assert!(
            sql.contains(
                " WHERE `state` = 'PROCESSING' AND `id` IN (?, ?) -- binds: [7, 201, 9, 201,"
            ),
            "{sql}"
        );
        assert_eq!(debug_query::<Sqlite, _>(&update).to_string(), sql);
    }
}
