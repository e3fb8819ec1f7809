//! Claims and extensions of a group of leases in one statement each
//! (`docs/long-running-operations.md#leases-and-fencing`): every row still changes only at
//! the generation its claimer saw, so each operation's fence is exactly as when it is
//! written alone.

use application::ports::{Claim, StoreError};
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{Binary, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{Generation, Lease, OwnerId};
use uuid::Uuid;

use super::fenced::{PENDING, stored};
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::pairs_in::PairsIn;
use crate::sql::schema::operations;

type AtGeneration = PairsIn<operations::generation, operations::id, Vec<u8>>;

/// `UPDATE operations SET …, lease_expires_at = ? WHERE state = 'PENDING' AND …
/// ((generation = ? AND id = ?) OR …)`. A claim also moves each row to its next
/// generation for `owner`, and needs the lease free or run out at `now`; an extension
/// changes only the expiry. Its text depends only on the number of rows.
pub(crate) struct LeaseAll {
    claim: Option<(Vec<u8>, NaiveDateTime)>,
    expires: NaiveDateTime,
    rows: AtGeneration,
}

impl QueryId for LeaseAll {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> QueryFragment<DB> for LeaseAll
where
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
    AtGeneration: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE operations SET lease_expires_at = ");
        out.push_bind_param::<Timestamp, _>(&self.expires)?;
        if let Some((owner, now)) = &self.claim {
            out.push_sql(", generation = generation + 1, lease_owner = ");
            out.push_bind_param::<Binary, [u8]>(owner)?;
            out.push_sql(", updated_at = ");
            out.push_bind_param::<Timestamp, _>(now)?;
        }
        out.push_sql(" WHERE state = '");
        out.push_sql(PENDING);
        out.push_sql("' AND ");
        if let Some((_, now)) = &self.claim {
            out.push_sql("(lease_expires_at IS NULL OR lease_expires_at <= ");
            out.push_bind_param::<Timestamp, _>(now)?;
            out.push_sql(") AND ");
        }
        self.rows.walk_ast(out.reborrow())
    }
}

/// The rows at the given generations that are still pending, with their lease's owner:
/// which rows of a group a statement changed, when it did not change them all.
#[dsl::auto_type]
fn held_query(state: &'static str, rows: AtGeneration) -> _ {
    operations::table
        .filter(operations::state.eq(state).and(rows))
        .select((operations::id, operations::lease_owner))
}

fn at_generation<'a>(
    rows: impl Iterator<Item = (Uuid, &'a Generation)>,
) -> Result<AtGeneration, StoreError> {
    let pairs = rows
        .map(|(id, generation)| Ok((stored(*generation)?, id.as_bytes().to_vec())))
        .collect::<Result<_, StoreError>>()?;
    Ok(PairsIn::new(operations::generation, operations::id, pairs))
}

/// What a group writes of its leases.
pub(crate) enum Leasing<'a> {
    /// Each claim moves its row on from the generation its claimer saw, at `now`.
    Claims(&'a [Claim<'a>], NaiveDateTime),
    /// Each lease (of the operation with that id) extended as it says.
    Extensions(&'a [(Uuid, &'a Lease)]),
}

/// The leases as one statement when they share one owner and one expiry (a worker's group
/// always does), else a statement per run of equal ones; answers each, in their order:
/// all or none by the row count alone, else as the held rows are read back.
pub(crate) async fn lease<C>(conn: &mut C, leasing: Leasing<'_>) -> Result<Vec<bool>, StoreError>
where
    C: SqlConnection,
    LeaseAll: QueryFragment<C::Backend>,
    held_query: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<(operations::id, operations::lease_owner)>>,
    (Vec<u8>, Option<Vec<u8>>):
        FromSqlRow<SqlTypeOf<(operations::id, operations::lease_owner)>, C::Backend>,
{
    // Each row's id, the lease it holds after, and the generation it must be at now.
    let (rows, claimed_at): (Vec<(Uuid, &Lease, Generation)>, _) = match leasing {
        Leasing::Claims(claims, now) => (
            claims.iter().map(|c| (c.id, c.lease, c.seen)).collect(),
            Some(now),
        ),
        Leasing::Extensions(leases) => (
            leases
                .iter()
                .map(|(id, l)| (*id, *l, l.generation))
                .collect(),
            None,
        ),
    };
    let mut answers = Vec::with_capacity(rows.len());
    for run in rows.chunk_by(|(_, a, _), (_, b, _)| same_holder(a, b)) {
        let Some((_, first, _)) = run.first() else {
            continue;
        };
        let write = LeaseAll {
            claim: claimed_at.map(|now| (owner_bytes(&first.owner), now)),
            expires: first.expires_at.naive_utc(),
            rows: at_generation(run.iter().map(|(id, _, generation)| (*id, generation)))?,
        };
        let changed = write.execute(conn).await.map_err(C::Backend::store_error)?;
        if changed == run.len() || changed == 0 {
            answers.extend(std::iter::repeat_n(changed > 0, run.len()));
            continue;
        }
        // Some but not all: read which rows are now at the lease's generation, ours.
        let held = at_generation(run.iter().map(|(id, lease, _)| (*id, &lease.generation)))?;
        let held: Vec<(Vec<u8>, Option<Vec<u8>>)> = held_query(PENDING, held)
            .load(conn)
            .await
            .map_err(C::Backend::store_error)?;
        answers.extend(run.iter().map(|(id, lease, _)| {
            let owner = Some(lease.owner.as_str().as_bytes());
            held.iter()
                .any(|(row, held_by)| row == id.as_bytes() && held_by.as_deref() == owner)
        }));
    }
    Ok(answers)
}

fn same_holder(a: &Lease, b: &Lease) -> bool {
    a.owner == b.owner && a.expires_at == b.expires_at
}

fn owner_bytes(owner: &OwnerId) -> Vec<u8> {
    owner.as_str().as_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use diesel::debug_query;
    use diesel::mysql::Mysql;

    use super::*;

    #[test]
    fn a_claim_moves_each_row_from_the_generation_its_claimer_saw() {
        let at = DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        let seen = [Generation::new(4), Generation::new(9)];
        let ids = [Uuid::from_u128(1), Uuid::from_u128(2)];
        let write = LeaseAll {
            claim: Some((b"w1".to_vec(), at)),
            expires: at,
            rows: at_generation(ids.into_iter().zip(&seen)).unwrap(),
        };
        let text = debug_query::<Mysql, _>(&write).to_string();
        assert!(
            text.starts_with(
                "UPDATE operations SET lease_expires_at = ?, generation = generation + 1, \
                 lease_owner = ?, updated_at = ? WHERE state = 'PENDING' AND \
                 (lease_expires_at IS NULL OR lease_expires_at <= ?) AND \
                 ((`operations`.`generation` = ? AND `operations`.`id` = ?) OR \
                 (`operations`.`generation` = ? AND `operations`.`id` = ?))"
            ),
            "{text}"
        );
    }
}
