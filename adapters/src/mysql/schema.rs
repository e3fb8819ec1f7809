//! Diesel's view of the tables in `migrations/mysql`.

diesel::table! {
    api_idempotency (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        actor_id -> BigInt,
        operation -> Varbinary,
        idempotency_key -> Varbinary,
        fingerprint_version -> SmallInt,
        request_hash -> Binary,
        state -> Varchar,
        response_status -> Nullable<SmallInt>,
        response_content_type -> Nullable<Varchar>,
        response_location -> Nullable<Varchar>,
        response_body -> Nullable<Blob>,
        created_at -> Datetime,
        completed_at -> Nullable<Datetime>,
        expires_at -> Nullable<Datetime>,
    }
}

diesel::table! {
    orders (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        client_order_ref -> Varbinary,
        sku -> Varbinary,
        quantity -> SmallInt,
        created_at -> Datetime,
    }
}

/// The columns of `crate::rows::RecordRow`, in its field order.
macro_rules! record_columns {
    () => {{
        use $crate::mysql::schema::api_idempotency::dsl as r;
        (
            r::id,
            r::fingerprint_version,
            r::request_hash,
            r::state,
            r::response_status,
            r::response_content_type,
            r::response_location,
            r::response_body,
            r::completed_at,
            r::expires_at,
        )
    }};
}

/// The columns of `crate::rows::OrderRow`, in its field order.
macro_rules! order_columns {
    () => {{
        use $crate::mysql::schema::orders::dsl as o;
        (
            o::id,
            o::tenant_id,
            o::client_order_ref,
            o::sku,
            o::quantity,
            o::created_at,
        )
    }};
}
