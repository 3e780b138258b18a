//! `lb decide [--budget-cpu SECONDS] [MANIFEST…]`: lb-pipeline's
//! `decide`, its outcome printed — a row per claim that was inconclusive
//! (or was looked at again), then each claim's rounds.

use crate::progress;
use crate::ran::{point_names, print_report};
use lb_analysis::audit::Verdict;
use lb_manifest::Profile;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::decide::{ClaimOutcome, DEFAULT_BUDGET_CPU, Decided, Options, Stop};
use lb_store::cache::Cache;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub fn decide(
    cache: &Cache,
    manifests: &[PathBuf],
    threads: Option<usize>,
    force: bool,
    budget: Option<f64>,
) -> Res {
    let budget = budget.unwrap_or(DEFAULT_BUDGET_CPU);
    if !(budget.is_finite() && budget >= 0.0) {
        return Err(format!("--budget-cpu {budget}: must be a number of seconds ≥ 0").into());
    }
    let manifests = lb_pipeline::manifests_or_all(manifests)?;
    let loaded = lb_manifest::load_all(&manifests, Profile::Full)?;
    let o = Options {
        budget_cpu: budget,
        run: RunOptions {
            threads,
            force,
            shard: None,
            args: std::env::args().collect(),
            manifests: manifests.clone(),
        },
        cpu_clock: Some(process_cpu),
    };
    let cpu0 = process_cpu();
    let progress = progress::for_stderr();
    let d = lb_pipeline::decide::decide(cache, &loaded, &o, progress.as_ref())?;
    drop(progress);
    let r = &d.ran.report;
    if r.computed > 0 || !r.damaged.is_empty() {
        let plans = lb_pipeline::compute::plans(&loaded);
        print_report(r, d.ran.wall, d.ran.threads, &point_names(cache, &plans));
    } else {
        println!(
            "the plans were complete: {} record(s) already cached",
            r.reused
        );
    }
    print!("{}", render(&d, process_cpu() - cpu0));
    Ok(ExitCode::SUCCESS)
}

/// The outcome in words: totals, a table of the claims, each claim's rounds.
fn render(d: &Decided, process: f64) -> String {
    let mut s = String::new();
    let targeted: Vec<&ClaimOutcome> = d.claims.iter().filter(|c| c.targeted).collect();
    let decided = |v: Verdict| targeted.iter().filter(|c| c.verdict == v).count();
    let _ = writeln!(
        s,
        "\ndecide: {} of {} inconclusive claim(s) decided ({} confirmed, {} refuted); the \
         rounds were estimated at {:.0} CPU-s of a budget of {:.0}, and took {:.0} CPU-s ({:.0} s \
         wall; their replications' records state {:.0} s; this process used {:.0} CPU-s in all)",
        decided(Verdict::Confirmed) + decided(Verdict::Refuted),
        targeted.len(),
        decided(Verdict::Confirmed),
        decided(Verdict::Refuted),
        d.charged,
        d.budget,
        d.cpu,
        d.wall.as_secs_f64(),
        d.wall_of_records,
        process
    );
    s.push_str(
        "\n| claim | experiment | before | looks | points, replications added | CPU-s \
         (estimated / taken) | now | stopped |\n| --- | --- | --- | ---: | --- | ---: | --- \
         | --- |\n",
    );
    for c in &d.claims {
        let (points, reps) = c.added();
        let _ = writeln!(
            s,
            "| {}{} | {} | {} ({}) | {} | {} | {:.0} / {:.0} | {} ({}) | {} |",
            c.id,
            if c.targeted { "" } else { " (looked at again)" },
            c.experiment,
            c.before.word(),
            percent(c.level_before),
            c.looks,
            if points == 0 {
                "—".to_string()
            } else {
                format!("{points} point(s), +{reps}")
            },
            c.charged,
            c.cpu,
            c.verdict.word(),
            percent(c.level),
            match &c.stop {
                Stop::Decided | Stop::Untouched => c.stop.words(),
                other => other.words().replace('|', "/"),
            }
        );
    }
    for c in d.claims.iter().filter(|c| !c.rounds.is_empty()) {
        let _ = writeln!(s, "\n{} / {}:", c.experiment, c.id);
        for r in &c.rounds {
            let pts: Vec<String> = r
                .points
                .iter()
                .map(|p| format!("{} {}→{}", p.point, p.from, p.to))
                .collect();
            let est: Vec<String> = r
                .estimates
                .iter()
                .map(|(at, n)| match n {
                    Some(n) => format!("n′ ≈ {n} at {at}"),
                    None => format!("n′ beyond reach at {at}"),
                })
                .collect();
            let _ = writeln!(
                s,
                "  look {}: {}; {} (≈ {:.1} / {:.1} CPU-s)",
                r.look,
                pts.join(", "),
                est.join("; "),
                r.charged,
                r.cpu
            );
        }
    }
    if !d.ledgers.is_empty() {
        let _ = writeln!(
            s,
            "\nledger(s) written (lb audit and lb reproduce read them; run lb reproduce to redraw \
             the report):"
        );
        for l in &d.ledgers {
            let _ = writeln!(s, "  {}", l.display());
        }
    }
    s
}

/// A level in percent with at most two decimals: "95%", "99.24%".
fn percent(level: f64) -> String {
    let p = format!("{:.2}", 100.0 * level);
    let p = p.trim_end_matches('0').trim_end_matches('.');
    format!("{p}%")
}

/// CPU-seconds this process has used (user and system), 0 where unknown.
fn process_cpu() -> f64 {
    #[cfg(unix)]
    {
        let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a rusage into the pointer it is given.
        let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) } == 0;
        if ok {
            // SAFETY: initialised by the successful call above.
            let u = unsafe { u.assume_init() };
            let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
            return t(u.ru_utime) + t(u.ru_stime);
        }
    }
    0.0
}
