//! A ceiling's hand-written statement, a type of its own with a static query id, so that
//! each is prepared once per connection, as the service's are (diesel never caches
//! `sql_query`).

/// `statement!(Name { fields }, "SQL up to the first bind", |self, out| { the binds })`;
/// without fields, the statement binds one `order: i64`.
macro_rules! statement {
    ($name:ident, $sql:literal, |$self_:ident, $out:ident| $binds:block) => {
        $crate::statement::statement!($name { order: i64 }, $sql, |$self_, $out| $binds);
    };
    ($name:ident { $($field:ident: $ty:ty),* }, $sql:literal, |$self_:ident, $out:ident| $binds:block) => {
        struct $name {
            $($field: $ty),*
        }

        impl diesel::query_builder::QueryId for $name {
            type QueryId = $name;
            const HAS_STATIC_QUERY_ID: bool = true;
        }

        impl diesel::query_builder::QueryFragment<diesel::mysql::Mysql> for $name {
            fn walk_ast<'b>(
                &'b $self_,
                mut $out: diesel::query_builder::AstPass<'_, 'b, diesel::mysql::Mysql>,
            ) -> diesel::QueryResult<()> {
                $out.push_sql($sql);
                $binds
                Ok(())
            }
        }
    };
}

pub(crate) use statement;
