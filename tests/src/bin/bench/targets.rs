//! The targets a run is held to, each with its figure and "met" or "MISSED".

use std::fmt::Write;

use crate::cost::Cost;
use crate::report::{Report, Scenario};

/// At concurrency 32 unless a scenario is named; absent when a figure could not be read.
pub(crate) fn targets(out: &mut String, report: &Report) {
    let at32 = |name: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.name == name && s.concurrency == 32)
    };
    let ratio = |name: &str| at32(name).and_then(|s| s.ratio);
    let server_cpu = |name: &str| at32(name).and_then(|s| s.cost.client_cpu_us);
    // A create's figure against the ceiling's per transaction, read in the same run.
    let create_vs_ceiling = |figure: fn(&Cost) -> Option<f64>| {
        at32("create").and_then(|s| {
            let (own, ceiling) = (figure(&s.cost)?, figure(s.ceiling_cost.as_ref()?)?);
            (ceiling > 0.0).then_some(own / ceiling)
        })
    };
    let db_cpu_vs_ceiling = create_vs_ceiling(|cost| cost.db_cpu_us);
    // A scenario's database CPU per request against the floor's per insert.
    let db_cpu_vs_floor_of = |name: &str| {
        at32(name).zip(at32("floor")).and_then(|(own, floor)| {
            let (own, floor) = (own.cost.db_cpu_us?, floor.cost.db_cpu_us?);
            (floor > 0.0).then_some(own / floor)
        })
    };
    let db_cpu_vs_floor = db_cpu_vs_floor_of("create");
    let create_commands = at32("create").map(|s| s.cost.db_commands);
    let server_cpu_vs_ceiling = create_vs_ceiling(|cost| cost.client_cpu_us);
    let rss_mib = report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0);
    let at_least = |v: Option<f64>, min: f64| v.map(|v| (v, v >= min));
    let at_most = |v: Option<f64>, max: f64| v.map(|v| (v, v <= max));
    let named = |name: &str| report.scenarios.iter().find(|s| s.name == name);
    let storm_commands = named("storm").map(|s| s.cost.db_commands);
    let speedup = |on: Option<&Scenario>, off: Option<&Scenario>| {
        on.zip(off)
            .and_then(|(on, off)| (off.rps > 0.0).then(|| on.rps / off.rps))
    };
    let cached = named("retries-cache");
    let retry_commands = cached.map(|s| s.cost.db_commands);
    let cache_speedup = speedup(cached, named("retries-no-cache"));
    let replay_speedup = speedup(at32("replay"), at32("replay-no-cache"));
    let commands = |name: &str| at32(name).map(|s| s.cost.db_commands);
    // What a refused member costs the rest of its batch: against the create scenario.
    let conflicting = at32("conflicting").zip(at32("create"));
    let conflicting_rps =
        conflicting.and_then(|(c, create)| (create.rps > 0.0).then(|| c.rps / create.rps));
    let conflicting_p99 =
        conflicting.and_then(|(c, create)| (create.p99_ms > 0.0).then(|| c.p99_ms / create.p99_ms));
    let embedded = report.embedded.as_ref();
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let lines = [
        (
            "create ratio (against the per-request design-SQL transaction) >= 1.5",
            at_least(ratio("create"), 1.5),
        ),
        (
            "db CPU per create <= 1.5x the single-insert floor's per insert",
            at_most(db_cpu_vs_floor, 1.5),
        ),
        (
            "db commands per create <= 0.5",
            at_most(create_commands, 0.5),
        ),
        (
            "replays/s from the cache >= 1.5x the same server's database path (cache off)",
            at_least(replay_speedup, 1.5),
        ),
        (
            "conflicting (1 in 10 a taken reference): orders/s >= 0.8x the create scenario's",
            at_least(conflicting_rps, 0.8),
        ),
        (
            "conflicting: p99 <= 1.5x the create scenario's",
            at_most(conflicting_p99, 1.5),
        ),
        (
            "cancel ratio (against the single cancel's design SQL) >= 1.5",
            at_least(ratio("cancel"), 1.5),
        ),
        (
            "db commands per cancel <= 1.0",
            at_most(commands("cancel"), 1.0),
        ),
        (
            "db CPU per cancel <= 2x the single-insert floor's per insert",
            at_most(db_cpu_vs_floor_of("cancel"), 2.0),
        ),
        (
            "capture acceptance ratio (against the single acceptance's design SQL) >= 1.5",
            at_least(ratio("capture"), 1.5),
        ),
        (
            "db commands per capture acceptance <= 1.0",
            at_most(commands("capture"), 1.0),
        ),
        (
            "db CPU per capture acceptance <= 2x the single-insert floor's per insert",
            at_most(db_cpu_vs_floor_of("capture"), 2.0),
        ),
        (
            "refund acceptance ratio (against the single acceptance's design SQL) >= 1.5",
            at_least(ratio("refund"), 1.5),
        ),
        (
            "db commands per refund acceptance <= 1.0",
            at_most(commands("refund"), 1.0),
        ),
        (
            "db CPU per refund acceptance <= 2x the single-insert floor's per insert",
            at_most(db_cpu_vs_floor_of("refund"), 2.0),
        ),
        (
            "mixed ratio (against its design SQL) >= 1.5",
            at_least(ratio("mixed"), 1.5),
        ),
        (
            "replay-no-cache ratio (against the one-statement read) >= 0.8",
            at_least(ratio("replay-no-cache"), 0.8),
        ),
        (
            "db commands per replay-no-cache <= 1.1",
            at_most(commands("replay-no-cache"), 1.1),
        ),
        (
            "server CPU per create <= 1.2x the ceiling client's per transaction",
            at_most(server_cpu_vs_ceiling, 1.2),
        ),
        (
            "server CPU per replay <= 40 us",
            at_most(server_cpu("replay"), 40.0),
        ),
        (
            "db CPU per create <= 1.5x the ceiling's per transaction",
            at_most(db_cpu_vs_ceiling, 1.5),
        ),
        ("server peak RSS <= 64 MiB", at_most(Some(rss_mib), 64.0)),
        (
            "storm: db commands per request <= 1.5",
            at_most(storm_commands, 1.5),
        ),
        (
            "retries over 100 keys: db commands per replay <= 0.05",
            at_most(retry_commands, 0.05),
        ),
        (
            "retries over 100 keys: replays/s with the cache >= 1.5x without",
            at_least(cache_speedup, 1.5),
        ),
        (
            "embedded: p99 <= 25 ms",
            at_most(embedded.map(|e| e.p99_ms), 25.0),
        ),
        (
            "embedded: worst <= 150 ms",
            at_most(embedded.map(|e| e.max_ms), 150.0),
        ),
        (
            "embedded: server peak RSS <= 64 MiB",
            at_most(embedded.map(|e| mib(e.server_peak_rss_bytes)), 64.0),
        ),
    ];
    out.push_str("\ntargets (concurrency 32 unless named):\n\n");
    for (target, figure) in lines {
        let _ = match figure {
            Some((value, met)) => writeln!(
                out,
                "- {target}: {value:.2} {}",
                if met { "met" } else { "MISSED" }
            ),
            None => writeln!(out, "- {target}: absent"),
        };
    }
}
