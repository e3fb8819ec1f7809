//! The run's figures as Markdown: printed at the end of a run, and spliced into the
//! README by `readme.rs`.

use std::fmt::Write;

use crate::report::Report;
use crate::targets::targets;

/// Everything a run measured, with the facts of the run above it.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::new();
    let run = &report.run;
    let _ = writeln!(
        out,
        "Run of {} on {}; commit `{}`; `{}`; database {}.\n",
        run.date,
        run.machine,
        run.commit,
        run.command,
        if run.database_private {
            format!("{}, the run's own", report.database)
        } else {
            format!(
                "{}, SHARED with other clients: its counters (db commands, prepares) \
                 include their work",
                report.database
            )
        }
    );
    speed(&mut out, report);
    cost(&mut out, report);
    relay(&mut out, report);
    captures(&mut out, report);
    embedded(&mut out, report);
    verification(&mut out, report);
    tracing(&mut out, report);
    galera(&mut out, report);
    if let Some(batches) = &report.create_batches {
        let _ = writeln!(
            out,
            "\nbatched creates (the main server, every scenario): {:.0} batches of two or \
             more, {:.1} creates each on average",
            batches.batches, batches.mean_size
        );
    }
    let _ = writeln!(
        out,
        "\nserver peak RSS: {:.1} MiB",
        report.server_peak_rss_bytes as f64 / (1024.0 * 1024.0)
    );
    targets(&mut out, report);
    out
}

fn speed(out: &mut String, report: &Report) {
    out.push_str(
        "| scenario | c | requests | errors | dup | rps | ceiling rps | ratio | p50 ms | p99 ms | max ms |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in &report.scenarios {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.0} | {} | {} | {:.2} | {:.2} | {:.1} |",
            s.name,
            s.concurrency,
            s.requests,
            s.errors,
            s.duplicates,
            s.rps,
            figure(s.ceiling_rps, 0),
            figure(s.ratio, 2),
            s.p50_ms,
            s.p99_ms,
            s.max_ms
        );
    }
}

fn cost(out: &mut String, report: &Report) {
    out.push_str(
        "\ncost per request (ceiling: per transaction or read; db commands = `Questions`, \
         CPU = user + system):\n\n\
         | scenario | c | db commands/req | prepares/req | server CPU µs/req | db CPU µs/req \
         | ceiling db commands/tx | ceiling prepares/tx | ceiling client CPU µs/tx \
         | ceiling db CPU µs/tx |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for s in &report.scenarios {
        let (c, r) = (&s.cost, s.ceiling_cost.as_ref());
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} |",
            s.name,
            s.concurrency,
            c.db_commands,
            c.prepares,
            micros(c.client_cpu_us),
            micros(c.db_cpu_us),
            figure(r.map(|r| r.db_commands), 2),
            figure(r.map(|r| r.prepares), 2),
            r.map_or_else(|| "—".to_owned(), |r| micros(r.client_cpu_us)),
            r.map_or_else(|| "—".to_owned(), |r| micros(r.db_cpu_us)),
        );
    }
    if !report.database_cpu_measured {
        out.push_str("(db CPU: absent, the database server's PID is unknown: BENCH_DB_PID)\n");
    }
}

fn relay(out: &mut String, report: &Report) {
    let Some(relay) = &report.relay else {
        return;
    };
    let _ = write!(
        out,
        "\nrelay on (a private nats-server), creates at c={}:\n\n\
         | creates | errors | creates/s | events published/s | max outbox_pending | lag p50 ms | lag p99 ms |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {} | {:.0} | {:.0} | {} | {:.1} | {:.1} |\n",
        relay.concurrency,
        relay.creates,
        relay.errors,
        relay.creates_per_s,
        relay.published_per_s,
        relay.max_pending,
        relay.lag_p50_ms,
        relay.lag_p99_ms,
    );
}

fn captures(out: &mut String, report: &Report) {
    let Some(c) = &report.captures else {
        return;
    };
    let _ = write!(
        out,
        "\ncaptures end to end (accepted at c={}, charged at the provider stand-in by {} \
         worker tasks, events relayed to a private nats-server):\n\n\
         | accepted | errors | accepted/s | completed/s | claims won/capture | claims lost/capture | db commands/capture | db CPU µs/capture | server CPU µs/capture |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {} | {} |\n",
        c.concurrency,
        c.workers,
        c.accepted,
        c.errors,
        c.accepted_per_s,
        c.completed_per_s,
        c.claims_won,
        c.claims_lost,
        c.cost.db_commands,
        micros(c.cost.db_cpu_us),
        micros(c.cost.client_cpu_us),
    );
}

fn embedded(out: &mut String, report: &Report) {
    let Some(e) = &report.embedded else {
        return;
    };
    let _ = write!(
        out,
        "\nembedded store (SQLite, no DATABASE_URL), creates at c={}:\n\n\
         | creates | errors | creates/s | p50 ms | p99 ms | max ms | server CPU µs/create | server peak RSS MiB |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {} | {:.1} |\n",
        e.concurrency,
        e.creates,
        e.errors,
        e.creates_per_s,
        e.p50_ms,
        e.p99_ms,
        e.max_ms,
        micros(e.server_cpu_us),
        e.server_peak_rss_bytes as f64 / (1024.0 * 1024.0),
    );
}

/// What verifying an identity provider's RS256 token costs over the HS256 secret's.
fn verification(out: &mut String, report: &Report) {
    let server_cpu = |name: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.cost.client_cpu_us)
    };
    if let (Some(hs256), Some(rs256)) = (server_cpu("replay"), server_cpu("replay-rs256")) {
        let _ = writeln!(
            out,
            "\nToken verification: server CPU per replay {hs256:.0} us with HS256 (the shared \
             secret), {rs256:.0} us with RS256 (an identity provider's JWKS): {:+.0} us.",
            rs256 - hs256
        );
    }
}

/// Tracing's cost: off against a build without it (the target: within 2 µs), and on.
fn tracing(out: &mut String, report: &Report) {
    let Some(t) = &report.tracing else {
        return;
    };
    let (base, off, on) = (&t.without_feature, &t.off, &t.exporting);
    let _ = write!(
        out,
        "\nTracing, server CPU per request at c=32 (median of {} rounds of {} s phases per build):\n\n\
         | build | per create us | vs without | per replay us | vs without |\n\
         | --- | ---: | ---: | ---: | ---: |\n\
         | without the `otel` feature | {:.1} | | {:.1} | |\n\
         | built in, no endpoint (off) | {:.1} | {:+.1} | {:.1} | {:+.1} |\n\
         | exporting every span | {:.1} | {:+.1} | {:.1} | {:+.1} |\n\n\
         Exporting: {:.1} spans per request, {:.0} dropped in all.\n",
        t.rounds,
        t.phase_seconds,
        base.create_us,
        base.replay_us,
        off.create_us,
        off.create_us - base.create_us,
        off.replay_us,
        off.replay_us - base.replay_us,
        on.create_us,
        on.create_us - base.create_us,
        on.replay_us,
        on.replay_us - base.replay_us,
        t.spans_per_request,
        t.spans_dropped,
    );
}

fn galera(out: &mut String, report: &Report) {
    let Some(galera) = &report.galera else {
        return;
    };
    let single = |name: &str| {
        report
            .scenarios
            .iter()
            .find(|s| s.name == name && s.concurrency == 32)
            .map_or((0.0, 0.0), |s| (s.rps, s.p99_ms))
    };
    let ((create_rps, create_p99), (replay_rps, replay_p99)) = (single("create"), single("replay"));
    let _ = write!(
        out,
        "\nGalera, 3 nodes, 3 server processes, c={}:\n\n\
         | | creates/s | create p99 ms | replays/s | replay p99 ms | reruns after 1213 per 1000 creates | mean batch | batches rerun at commit per 1000 creates | errors |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | Galera | {:.0} | {:.1} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {} |\n\
         | one node, one process (above) | {create_rps:.0} | {create_p99:.1} | {replay_rps:.0} | {replay_p99:.1} | | | | |\n",
        galera.concurrency,
        galera.creates_per_s,
        galera.create_p99_ms,
        galera.replays_per_s,
        galera.replay_p99_ms,
        galera.retries_per_1000_creates,
        galera.mean_batch_size,
        galera.batches_rerun_per_1000_creates,
        galera.create_errors + galera.replay_errors,
    );
}

/// `value` with `decimals`, or "—" for a scenario without it.
fn figure(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.decimals$}"))
}

/// A CPU figure in whole µs, or "absent".
fn micros(value: Option<f64>) -> String {
    value.map_or_else(|| "absent".to_owned(), |v| format!("{v:.0}"))
}
