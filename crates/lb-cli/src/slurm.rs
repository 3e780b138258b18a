//! `lb slurm` and `lb status`: lb-pipeline's staging of Slurm job arrays,
//! and where a sweep stands, printed.

use crate::outputs::Res;
use lb_model::model::Profile;
use lb_pipeline::slurm::{Options, Queue, stage, status as plan_status, submit};
use lb_store::cache::Cache;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn slurm(cache: &Cache, manifests: &[PathBuf], o: &Options, submit_now: bool) -> Res {
    let s = stage(cache, manifests, o)?;
    for w in &s.warnings {
        eprintln!("{w}");
    }
    println!(
        "{} stage(s) of {} task(s), then lb reproduce; scripts in {}:",
        s.stages,
        o.tasks,
        s.dir.display()
    );
    if !submit_now {
        for (p, text) in &s.scripts {
            println!("\n==> {} <==\n{text}", p.display());
        }
        println!(
            "submit with: {} (or lb slurm … --submit)",
            s.scripts[2].0.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for line in submit(&s)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn status(cache: &Cache, manifests: &[PathBuf], profile: Profile) -> Res {
    let (rows, queue) = plan_status(cache, manifests, profile)?;
    println!(
        "{:<32} {:>7} {:>7} {:>8} {:>9}  {:>8} {:>8} {:>7}",
        "experiment", "points", "done", "partial", "missing", "reps", "of", "damaged"
    );
    for r in &rows {
        println!(
            "{:<32} {:>7} {:>7} {:>8} {:>9}  {:>8} {:>8} {:>7}",
            r.name, r.points, r.done, r.partial, r.missing, r.present, r.needed, r.damaged
        );
    }
    match queue {
        Queue::Jobs { name, lines } if lines.is_empty() => {
            println!("slurm: no job named {name}* in the queue")
        }
        Queue::Jobs { lines, .. } => {
            println!("slurm (job, name, state, time, reason):");
            for l in lines {
                println!("  {l}");
            }
        }
        Queue::Unavailable => println!("slurm: not available here (no squeue)"),
    }
    Ok(ExitCode::SUCCESS)
}
