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
