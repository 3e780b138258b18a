//! `lb decide [--budget-cpu SECONDS] [MANIFEST…]`: lb-pipeline's
//! `decide`, its outcome printed — a row per claim that was inconclusive
//! (or was looked at again), then each claim's rounds.

use crate::progress;
use lb_manifest::Profile;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::decide::{DEFAULT_BUDGET_CPU, Options};
use lb_pipeline::run_text::{point_names, report};
use lb_store::cache::Cache;
use std::path::PathBuf;
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub(crate) fn decide(
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
        print!(
            "{}",
            report(r, d.ran.wall, d.ran.threads, &point_names(cache, &plans))
        );
    } else {
        println!(
            "the plans were complete: {} record(s) already cached",
            r.reused
        );
    }
    print!("{}", lb_pipeline::decide::render(&d, process_cpu() - cpu0));
    Ok(ExitCode::SUCCESS)
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
