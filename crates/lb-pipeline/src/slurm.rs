//! Scale-out on Slurm: a sweep as job arrays, and where it stands.
//!
//! lb does not schedule anything itself. [`stage`] writes one sbatch script
//! per stage of the work ([`lb_store::run::stages`]): a job array of N
//! tasks, task I running `lb run MANIFEST… --shard I/N`, each stage
//! depending on the one before (`--dependency=afterok`) — first the
//! message-budget calibrations, then each round of precision-driven
//! replications — and a final job running `lb reproduce`. Shards write into
//! one results directory; their work is disjoint and every record appears by
//! atomic rename, so nothing depends on file locks (which NFS may not honour).

use crate::Error;
use crate::compute::plans;
use lb_model::model::Profile;
use lb_store::cache::Cache;
use lb_store::run::{State, stages, status as point_status};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The settings of `lb slurm`.
pub struct Options {
    /// Array tasks (shards) per stage.
    pub tasks: u32,
    /// The Slurm partition, if one is named.
    pub partition: Option<String>,
    /// Each task's time limit, as Slurm writes it.
    pub time: String,
    /// CPUs per task.
    pub cpus: u32,
    /// Where the scripts are written.
    pub dir: PathBuf,
    /// Full or quick.
    pub profile: Profile,
}

/// The scripts [`stage`] wrote.
pub struct Staged {
    /// Stages of sharded work before `lb reproduce`.
    pub stages: usize,
    /// Where the scripts are.
    pub dir: PathBuf,
    /// The shard script, the reproduce script and `submit.sh`, with their text.
    pub scripts: Vec<(PathBuf, String)>,
    /// What the staging warns of.
    pub warnings: Vec<String>,
}

/// Single-quoted for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf, Error> {
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    })
}

/// The job name of an experiment set: `lb-` and the first experiment's name.
fn job_name(plans: &[lb_manifest::Plan]) -> String {
    format!(
        "lb-{}",
        plans.first().map(|p| p.name.as_str()).unwrap_or("run")
    )
}

/// Writes the scripts of `manifests`' work under `o.dir`.
pub fn stage(cache: &Cache, manifests: &[PathBuf], o: &Options) -> Result<Staged, Error> {
    if o.tasks == 0 || o.tasks > 10_000 {
        return Err(format!("--tasks must lie in 1..=10000, got {}", o.tasks).into());
    }
    let mut warnings = Vec::new();
    if o.tasks > 1001 {
        warnings.push(format!(
            "warning: --tasks {} exceeds Slurm's default MaxArraySize (1001); the cluster \
             must allow larger arrays",
            o.tasks
        ));
    }
    if o.cpus == 0 || o.cpus > 1024 {
        return Err(format!("--cpus must lie in 1..=1024, got {}", o.cpus).into());
    }
    let plans = plans(&lb_manifest::load_all(manifests, o.profile)?);
    let n_stages = stages(&plans);
    let lb = std::env::current_exe()?;
    let cwd = std::env::current_dir()?;
    let results = absolute(cache.root())?;
    let manifests: Vec<String> = manifests
        .iter()
        .map(|m| absolute(m).map(|p| sh(&p.display().to_string())))
        .collect::<Result<_, _>>()?;
    let quick = if o.profile == Profile::Quick {
        " --quick"
    } else {
        ""
    };
    let name = job_name(&plans);
    std::fs::create_dir_all(&o.dir).map_err(|e| {
        format!(
            "{}: cannot create the script directory: {e}",
            o.dir.display()
        )
    })?;
    let dir = absolute(&o.dir)?;
    let header = |job: &str, array: bool| {
        let mut s = String::from("#!/bin/bash\n");
        let _ = writeln!(s, "#SBATCH --job-name={job}");
        if array {
            let _ = writeln!(s, "#SBATCH --array=0-{}", o.tasks - 1);
            let _ = writeln!(s, "#SBATCH --output={}/{job}-%A_%a.out", dir.display());
        } else {
            let _ = writeln!(s, "#SBATCH --output={}/{job}-%j.out", dir.display());
        }
        let _ = writeln!(s, "#SBATCH --cpus-per-task={}", o.cpus);
        let _ = writeln!(s, "#SBATCH --time={}", o.time);
        if let Some(p) = &o.partition {
            let _ = writeln!(s, "#SBATCH --partition={p}");
        }
        let _ = writeln!(
            s,
            "set -euo pipefail\ncd {}",
            sh(&cwd.display().to_string())
        );
        s
    };
    // Every stage runs the same command: a shard does what the records
    // present when it starts allow.
    let shard = format!(
        "{}{}exec {} --results {} run {}{quick} --threads {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" \
         --stage \"${{LB_STAGE:-1}}\"\n",
        header(&format!("{name}-shard"), true),
        "# One stage of the work (LB_STAGE, set at submission), shard $SLURM_ARRAY_TASK_ID of\n\
         # the array.\n",
        sh(&lb.display().to_string()),
        sh(&results.display().to_string()),
        manifests.join(" "),
        o.cpus,
        o.tasks
    );
    let reproduce = format!(
        "{}# Everything left (nothing, when every stage succeeded), the precision\n\
         # decisions of the last round, then the figures, tables, report and audit.\n\
         exec {} --results {} reproduce {}{quick} --threads {}\n",
        header(&format!("{name}-reproduce"), false),
        sh(&lb.display().to_string()),
        sh(&results.display().to_string()),
        manifests.join(" "),
        o.cpus
    );
    let shard_path = dir.join("shard.sbatch");
    let reproduce_path = dir.join("reproduce.sbatch");
    let mut submit = String::from(
        "#!/bin/bash\n# Submits the stages in order, each depending on the one before.\nset -euo pipefail\n",
    );
    let _ = writeln!(submit, "prev=\"\"");
    let _ = writeln!(
        submit,
        "for stage in $(seq 1 {n_stages}); do\n  dep=${{prev:+--dependency=afterok:$prev}}\n  \
         prev=$(sbatch --parsable --export=ALL,LB_STAGE=$stage $dep {})\n  prev=${{prev%%;*}}\n  echo \"stage $stage/{n_stages}: job array $prev\"\ndone",
        sh(&shard_path.display().to_string())
    );
    let _ = writeln!(
        submit,
        "last=$(sbatch --parsable --dependency=afterok:$prev {})\necho \"reproduce: job $last\"",
        sh(&reproduce_path.display().to_string())
    );
    let submit_path = dir.join("submit.sh");
    for (p, text) in [
        (&shard_path, &shard),
        (&reproduce_path, &reproduce),
        (&submit_path, &submit),
    ] {
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(Staged {
        stages: n_stages,
        dir,
        scripts: vec![
            (shard_path, shard),
            (reproduce_path, reproduce),
            (submit_path, submit),
        ],
        warnings,
    })
}

/// Submits staged scripts with `sbatch`, each stage depending on the one
/// before and `lb reproduce` on the last; returns what to say of each job.
pub fn submit(s: &Staged) -> Result<Vec<String>, Error> {
    let (shard_path, reproduce_path) = (&s.scripts[0].0, &s.scripts[1].0);
    let n_stages = s.stages;
    let mut said = Vec::new();
    let sbatch = |args: &[&str]| -> Result<String, Error> {
        let out = Command::new("sbatch")
            .arg("--parsable")
            .args(args)
            .output()
            .map_err(|e| format!("sbatch: {e} (is Slurm installed here?)"))?;
        if !out.status.success() {
            return Err(format!(
                "sbatch {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap_or("")
            .to_string())
    };
    let shard_arg = shard_path.display().to_string();
    let mut prev: Option<String> = None;
    for stage in 1..=n_stages {
        let dep = prev.as_ref().map(|p| format!("--dependency=afterok:{p}"));
        let export = format!("--export=ALL,LB_STAGE={stage}");
        let mut args: Vec<&str> = vec![&export];
        if let Some(d) = &dep {
            args.push(d);
        }
        args.push(&shard_arg);
        let id = sbatch(&args)?;
        said.push(format!("stage {stage}/{n_stages}: job array {id}"));
        prev = Some(id);
    }
    let dep = format!("--dependency=afterok:{}", prev.expect("at least one stage"));
    let id = sbatch(&[&dep, &reproduce_path.display().to_string()])?;
    said.push(format!("reproduce: job {id}"));
    Ok(said)
}

/// Where one plan stands in the cache.
pub struct PlanStatus {
    /// The plan's experiment.
    pub name: String,
    /// Its points.
    pub points: usize,
    /// Points with every replication they need.
    pub done: usize,
    /// Points with some.
    pub partial: usize,
    /// Points with none.
    pub missing: usize,
    /// Replications present, and needed so far.
    pub present: u64,
    /// Replications needed so far.
    pub needed: u64,
    /// Damaged records.
    pub damaged: u64,
}

/// lb's jobs in Slurm's queue.
pub enum Queue {
    /// `squeue` is not available here.
    Unavailable,
    /// The job name searched for, and the queue's lines of its jobs (job,
    /// name, state, time, reason).
    Jobs {
        /// The job name searched for.
        name: String,
        /// The queue's lines of its jobs.
        lines: Vec<String>,
    },
}

/// Where the work of `manifests` stands: each plan's points and
/// replications, and lb's jobs in the queue where Slurm is present.
pub fn status(
    cache: &Cache,
    manifests: &[PathBuf],
    profile: Profile,
) -> Result<(Vec<PlanStatus>, Queue), Error> {
    crate::existing(cache)?;
    let plans = plans(&lb_manifest::load_all(manifests, profile)?);
    let rows = plans
        .iter()
        .map(|plan| {
            let st = point_status(cache, plan);
            let done = st.iter().filter(|p| p.state() == State::Cached).count();
            let partial = st.iter().filter(|p| p.state() == State::Partial).count();
            PlanStatus {
                name: plan.name.clone(),
                points: st.len(),
                done,
                partial,
                missing: st.len() - done - partial,
                present: st.iter().map(|p| p.present as u64).sum(),
                needed: st.iter().map(|p| p.needed as u64).sum(),
                damaged: st.iter().map(|p| p.damaged as u64).sum(),
            }
        })
        .collect();
    let name = job_name(&plans);
    let queue = match Command::new("squeue")
        .args(["-h", "-o", "%i %j %T %M %R"])
        .output()
    {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            // The job names are `<name>-shard` and `<name>-reproduce`.
            let lines = text
                .lines()
                .filter(|l| {
                    l.split_whitespace().nth(1).is_some_and(|j| {
                        j == format!("{name}-shard") || j == format!("{name}-reproduce")
                    })
                })
                .map(str::to_string)
                .collect();
            Queue::Jobs { name, lines }
        }
        _ => Queue::Unavailable,
    };
    Ok((rows, queue))
}
