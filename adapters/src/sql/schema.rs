//! Diesel's view of the tables, one for both stores (created by `migrations/`). Only SQL
//! types both backends implement: on MySQL, `Timestamp` reads and writes `DATETIME(6)`
//! exactly as the MySQL-only `Datetime` would (diesel delegates one to the other; no time
//! zone conversion, microseconds kept).

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
        status -> Text,
        cancelled_at -> Nullable<Timestamp>,
        cancel_reason -> Nullable<Binary>,
        revision -> BigInt,
    }
}

diesel::table! {
    outbox (id) {
        id -> BigInt,
        event_id -> Binary,
        event_type -> Binary,
        tenant_id -> BigInt,
        subject -> Binary,
        payload -> Binary,
        created_at -> Timestamp,
        published_at -> Nullable<Timestamp>,
        attempts -> Integer,
        ordering_key -> Nullable<Binary>,
        ordering_seq -> Nullable<BigInt>,
        trace_context -> Nullable<Text>,
    }
}

diesel::table! {
    inbox (consumer, event_id) {
        consumer -> Binary,
        event_id -> Binary,
        received_at -> Timestamp,
    }
}

diesel::table! {
    shipments (id) {
        id -> BigInt,
        order_id -> BigInt,
        tenant_id -> BigInt,
        sku -> Binary,
        quantity -> SmallInt,
        state -> Text,
        event_id -> Binary,
        created_at -> Timestamp,
        order_sequence -> BigInt,
    }
}

diesel::table! {
    operations (id) {
        id -> Binary,
        operation_type -> Binary,
        tenant_id -> BigInt,
        order_id -> BigInt,
        // amount and currency (written before 2026-12-03, never since) are left out.
        input -> Binary,
        result -> Binary,
        downstream_key -> Binary,
        state -> Text,
        generation -> BigInt,
        lease_owner -> Nullable<Binary>,
        lease_expires_at -> Nullable<Timestamp>,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    operation_traces (operation_id) {
        operation_id -> Binary,
        trace_context -> Text,
    }
}

diesel::table! {
    payments (id) {
        id -> BigInt,
        operation_id -> Binary,
        tenant_id -> BigInt,
        order_id -> BigInt,
        provider_charge_id -> Binary,
        amount -> Integer,
        currency -> Binary,
        created_at -> Timestamp,
        /// What the order's refunds not declined add up to (migration `000011`).
        refunded -> Integer,
    }
}

diesel::table! {
    audit_events (id) {
        id -> BigInt,
        occurred_at -> Timestamp,
        actor_tenant_id -> Nullable<BigInt>,
        actor_id -> Nullable<BigInt>,
        operator -> Nullable<Binary>,
        action -> Text,
        target_type -> Text,
        target_id -> Binary,
        target_tenant_id -> BigInt,
        state_before -> Text,
        state_after -> Text,
        request_id -> Binary,
    }
}

// A payment belongs to its operation (the status read joins them).
diesel::joinable!(payments -> operations (operation_id));
diesel::joinable!(operation_traces -> operations (operation_id));
diesel::allow_tables_to_appear_in_same_query!(operations, payments, operation_traces);
