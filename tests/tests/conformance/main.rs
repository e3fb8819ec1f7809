//! One conformance suite, written once against the ports and the HTTP API
//! (`docs/http-api.md`), run against every store: MySQL (a real MySQL-compatible server)
//! and the embedded SQLite store. Each case lives in `cases.rs` as a function generic over
//! [`tests::Backend`]; the macro below only instantiates it per store.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod acceptance;
mod admin;
mod batch_faults;
mod batch_lock_wait;
mod batch_rig;
mod batches;
mod cancel;
mod cancel_batches;
mod capture_batches;
mod cases;
mod embedded_writer;
mod grouped_leases;
mod inbox;
mod operations;
mod outbox;
mod refund_batches;
mod refunds;
mod stored_refusals;
mod upgrade;

macro_rules! conformance_suite {
    ($store:ident, $backend:ty) => {
        mod $store {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_storm_of_identical_requests_makes_one_order() {
                crate::cases::storm::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_queued_follower_replays_the_leaders_commit() {
                crate::cases::leader_commits::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_queued_follower_executes_once_after_the_leader_rolls_back() {
                crate::cases::leader_rolls_back::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_follower_held_past_the_lock_wait_hears_in_progress() {
                crate::cases::held_past_the_lock_wait::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_batch_commits_each_member_once_and_each_replays_its_own_answer() {
                crate::batches::a_batch_commits_each_member_once_and_each_replays_its_own_answer::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_completed_key_in_a_batch_replays_and_a_taken_reference_reruns_it() {
                crate::batches::a_completed_key_in_a_batch_replays_and_a_taken_reference_reruns_it::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn after_a_refused_batch_the_next_reads_its_references_and_is_not_rerun() {
                crate::batches::after_a_refused_batch_the_next_reads_its_references_and_is_not_rerun::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_reference_two_members_share_leaves_only_the_second_to_run_alone() {
                crate::batches::a_reference_two_members_share_leaves_only_the_second_to_run_alone::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_batch_of_cancels_answers_each_member_as_arrival_order_would() {
                crate::cancel_batches::a_batch_of_cancels_answers_each_member_as_arrival_order_would::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_batch_of_captures_answers_each_member_as_arrival_order_would() {
                crate::capture_batches::a_batch_of_captures_answers_each_member_as_arrival_order_would::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_batch_of_refunds_answers_each_member_as_arrival_order_would() {
                crate::refund_batches::a_batch_of_refunds_answers_each_member_as_arrival_order_would::<$backend>().await;
            }

            #[tokio::test]
            async fn a_batch_reservation_goes_in_whole_or_not_at_all() {
                crate::refund_batches::a_batch_reservation_goes_in_whole_or_not_at_all::<$backend>().await;
            }

            #[tokio::test]
            async fn the_same_key_with_another_request_is_key_reused() {
                crate::cases::key_reuse::<$backend>().await;
            }

            #[tokio::test]
            async fn another_key_with_a_used_client_order_ref_is_a_conflict() {
                crate::cases::client_order_ref_conflict::<$backend>().await;
            }

            #[tokio::test]
            async fn purge_deletes_only_expired_completed_records() {
                crate::cases::purge::<$backend>().await;
            }

            #[tokio::test]
            async fn stored_values_read_back_unchanged() {
                crate::cases::stored_values_read_back_unchanged::<$backend>().await;
            }

            #[tokio::test]
            async fn the_relay_claims_in_order_marks_what_it_is_told_and_purges_published() {
                crate::outbox::relay_claims_marks_and_purges::<$backend>().await;
            }

            #[tokio::test]
            async fn refunds_stay_within_the_capture_and_going_over_is_the_keys_answer() {
                crate::refunds::refunds_stay_within_the_capture_and_going_over_is_the_keys_answer::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn a_redelivered_event_changes_nothing() {
                crate::inbox::a_redelivered_event_changes_nothing::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn concurrent_deliveries_of_one_event_apply_it_once() {
                crate::inbox::concurrent_deliveries_apply_once::<$backend>().await;
            }

            #[tokio::test]
            async fn a_cancel_ends_the_shipment_cancelled_in_either_order_unless_shipped() {
                crate::inbox::a_cancel_ends_the_shipment_cancelled_in_either_order_unless_shipped::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn a_poison_payload_writes_nothing() {
                crate::inbox::a_poison_payload_writes_nothing::<$backend>().await;
            }

            #[tokio::test]
            async fn a_capture_needs_the_tenants_own_order_and_no_active_capture() {
                crate::acceptance::only_the_tenants_own_order_is_captured_and_only_once::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn the_cancel_reads_under_lock_and_marks_the_order() {
                crate::cancel::the_cancel_reads_under_lock_and_marks_the_order::<$backend>().await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_cancel_and_a_capture_of_one_order_never_both_win() {
                crate::cancel::a_cancel_and_a_capture_of_one_order_never_both_win::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn a_cancelled_order_takes_no_capture() {
                crate::acceptance::a_cancelled_order_takes_no_capture_and_a_capture_writes_its_order::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn a_declined_capture_leaves_the_order_free() {
                crate::acceptance::a_declined_capture_leaves_the_order_free_for_another::<$backend>()
                    .await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn one_claimer_wins_each_generation_of_an_operation() {
                crate::operations::one_claimer_wins_each_generation::<$backend>().await;
            }

            #[tokio::test]
            async fn a_group_is_claimed_extended_and_ended_each_under_its_own_fence() {
                crate::grouped_leases::a_group_is_claimed_extended_and_ended_each_under_its_own_fence::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn operations_are_counted_by_state() {
                crate::operations::operations_are_counted_by_state::<$backend>().await;
            }

            #[tokio::test]
            async fn a_stale_owner_changes_nothing_and_a_success_pays_once() {
                crate::operations::a_stale_owner_changes_nothing_and_a_success_pays_once::<$backend>()
                    .await;
            }

            #[tokio::test]
            async fn an_orders_later_event_waits_for_its_earlier_one() {
                crate::outbox::an_orders_later_event_waits_for_its_earlier_one::<$backend>().await;
            }

            #[tokio::test]
            async fn purge_never_takes_a_pending_event() {
                crate::outbox::purge_never_takes_a_pending_event::<$backend>().await;
            }

            #[tokio::test]
            async fn a_replay_over_http_repeats_the_stored_bytes() {
                crate::cases::replay_bytes_over_http::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_listings_are_newest_first_filtered_scoped_and_paged() {
                crate::admin::listings_are_newest_first_filtered_scoped_and_paged::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_changes_are_fenced_and_a_resolved_success_pays_once() {
                crate::admin::a_change_is_fenced_and_a_resolved_success_pays_once::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_retry_makes_the_operation_due_now_under_its_key() {
                crate::admin::a_retry_makes_the_operation_due_now_under_its_key::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_cancel_frees_the_order_for_another_capture() {
                crate::admin::a_cancel_frees_the_order_for_another_capture::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_evicts_only_a_completed_key_and_reads_its_metadata() {
                crate::admin::only_a_completed_key_is_evicted_and_its_metadata_reads_back::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_sees_the_last_attempts_error_until_a_success() {
                crate::admin::the_last_attempts_error_is_kept_until_a_success::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_reads_an_operations_trace_id() {
                crate::admin::an_operation_reads_with_the_trace_id_it_was_accepted_in::<$backend>().await;
            }

            #[tokio::test]
            async fn a_stored_refusal_undoes_the_step_and_answers_the_key_again() {
                crate::stored_refusals::a_stored_refusal_undoes_the_step_and_answers_the_key_again::<$backend>().await;
            }

            #[tokio::test]
            async fn a_refusal_not_stored_leaves_the_key_free() {
                crate::stored_refusals::a_refusal_not_stored_leaves_the_key_free::<$backend>().await;
            }

            #[tokio::test]
            async fn captures_accepted_before_read_and_work_after_the_upgrade() {
                crate::upgrade::captures_accepted_before_read_and_work_after_the_upgrade::<$backend>().await;
            }

            #[tokio::test]
            async fn admin_audit_rows_page_newest_first_within_the_scope() {
                crate::admin::audit_rows_page_newest_first_within_the_scope::<$backend>().await;
            }
        }
    };
}

conformance_suite!(mysql, tests::TestDb);
conformance_suite!(sqlite, tests::SqliteDb);
