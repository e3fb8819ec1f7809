//! Diesel's view of the tables in `migrations/sqlite`.

diesel::table! {
    api_idempotency (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        actor_id -> BigInt,
        operation -> Binary,
        idempotency_key -> Binary,
        fingerprint_version -> SmallInt,
        request_hash -> Binary,
        state -> Text,
        response_status -> Nullable<SmallInt>,
        response_content_type -> Nullable<Text>,
        response_location -> Nullable<Text>,
        response_body -> Nullable<Binary>,
        created_at -> Timestamp,
        completed_at -> Nullable<Timestamp>,
        expires_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    orders (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        client_order_ref -> Binary,
        sku -> Binary,
        quantity -> SmallInt,
        created_at -> Timestamp,
    }
}

/// The columns of `crate::rows::RecordRow`, in its field order.
macro_rules! record_columns {
    () => {{
        use $crate::sqlite::schema::api_idempotency::dsl as r;
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
        use $crate::sqlite::schema::orders::dsl as o;
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
