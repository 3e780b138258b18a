//! `lb` — plan, run, inspect and verify the experiments of this workspace
//! (docs/MODEL.md §4). Errors go to stderr as `error: <file>:<line>:<col>: <field>:
//! <what is allowed>`; every failure exits non-zero.

mod commands;
mod coverage;
mod decide;
mod outputs;
mod progress;
mod slurm;

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand};
use lb_model::model::Profile;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "lb",
    version = env!("LB_BUILD_VERSION"),
    about = "Reproducible load-balancing experiments",
    after_help = "Manifests: every key is explained, with a complete annotated example, in \
                  experiments/README.md; `lb new NAME --model slotted --policies JSQ,Random` \
                  writes one to start from. Reproduce everything: `just reproduce`; audit: \
                  `lb audit`."
)]
/// The command line: global options and one command.
pub struct Cli {
    /// The results directory (the cache).
    #[arg(long, global = true, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// lb's commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List every point of the manifests: key, axis values, cached or missing.
    Plan {
        /// Manifests (TOML files under experiments/, or any path).
        #[arg(required = true, value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Plan the --quick profile instead.
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
        /// As for `lb run`: work beyond lb's soft limits is a warning, not
        /// an error (`lb plan` applies the guards `lb run` applies).
        #[arg(long)]
        force: bool,
        /// The threads `lb run` would use (default: every core), for its
        /// soft limit on wall time.
        #[arg(long)]
        threads: Option<usize>,
        /// Say why each missing point is missing: never computed, its
        /// engine version moved, or which fields differ from the closest
        /// point the cache holds.
        #[arg(long)]
        why: bool,
    },
    /// Run the missing (point, replication) pairs of the manifests.
    Run {
        /// Manifests (TOML files under experiments/, or any path).
        #[arg(required = true, value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Short runs and few replications, for smoke tests (own keys).
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
        /// Run even when the work is estimated beyond lb's soft limits (a day
        /// of CPU time, or 80% of the machine's memory).
        #[arg(long)]
        force: bool,
        /// Do only shard I of N (0 ≤ I < N) of one stage of the work: N
        /// processes with I = 0…N−1 cover it exactly once between them (see
        /// `lb slurm`).
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// With --shard: the stage this is (1 = the first). A stage after
        /// the first needs every p̂ calibration, which the first computes: a
        /// point still waiting for one is a failure (a task of an earlier
        /// stage failed), not work left for later. `lb slurm` passes it.
        #[arg(long, value_name = "K", requires = "shard")]
        stage: Option<u32>,
    },
    /// Run the points of inconclusive claims further until each is decided
    /// or the budget is spent: claim by claim (cheapest first), double the
    /// replications of the points that leave it inconclusive, holding its
    /// j-th look at level 1 − α·6/(π²j²) (alpha spending). The extra
    /// replications and looks are recorded in
    /// `experiments/decide/<experiment>.json`, which lb audit and lb
    /// reproduce then read.
    Decide {
        /// Manifests (default: every experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Run even when the work is estimated beyond lb's soft limits.
        #[arg(long)]
        force: bool,
        /// The CPU-seconds it may spend on its rounds (estimated from the
        /// records' own timings before each round; default 1800).
        #[arg(long, value_name = "SECONDS")]
        budget_cpu: Option<f64>,
    },
    /// Write (and with --submit, submit) Slurm job arrays that run the
    /// manifests' missing work as shards, stage by stage, then `lb reproduce`.
    Slurm {
        /// Manifests (TOML files under experiments/, or any path).
        #[arg(required = true, value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Tasks of each job array (shards).
        #[arg(long, default_value_t = 4, value_name = "N")]
        tasks: u32,
        /// The Slurm partition (default: the cluster's default).
        #[arg(long, value_name = "P")]
        partition: Option<String>,
        /// Time limit of each task, in Slurm's format (e.g. 1:00:00).
        #[arg(long, default_value = "1:00:00", value_name = "T")]
        time: String,
        /// CPUs of each task (its --threads).
        #[arg(long, default_value_t = 1, value_name = "C")]
        cpus: u32,
        /// Where the scripts go.
        #[arg(long, default_value = "slurm", value_name = "DIR")]
        out: PathBuf,
        /// The --quick profile.
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
        /// Submit the stages (each depending on the one before) and print the
        /// job ids; without it the scripts are written and shown.
        #[arg(long)]
        submit: bool,
    },
    /// Points and replications done, missing and damaged per experiment; with
    /// Slurm present, the state of lb's jobs in the queue.
    Status {
        /// Manifests (TOML files under experiments/, or any path).
        #[arg(required = true, value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// The --quick profile.
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
    },
    /// Show a record in full: configuration, replications, provenance.
    Show {
        /// The record's key, or a prefix of it that names one record.
        #[arg(value_name = "KEY-PREFIX")]
        key: String,
        /// Print the configuration whole: every server's and dispatcher's
        /// entry, where by default a long list is summarised in one line.
        #[arg(long)]
        full: bool,
    },
    /// List, check or clean the results directory.
    Cache {
        /// What to do with the cache.
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Print an experiment's table: mean ± 95% half-width per point.
    Table {
        /// The experiment's manifest (required, unless --columns).
        #[arg(value_name = "MANIFEST", required_unless_present = "columns")]
        manifest: Option<PathBuf>,
        /// Markdown (mean ± half-width cells), CSV or JSON (numbers as numbers).
        #[arg(long, value_enum, default_value = "md")]
        format: outputs::Format,
        /// The table of the --quick profile.
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
        /// One row per replication instead of per point.
        #[arg(long)]
        long: bool,
        /// Explain the columns and exit.
        #[arg(long)]
        columns: bool,
    },
    /// Run the manifests (cache hits are free), then write their tables,
    /// figures and sections of the report and the audit (other experiments'
    /// sections are kept as they are).
    Reproduce {
        /// Manifests (default: every experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Recompute everything into a new results directory beside the cache
        /// (the cache is left untouched).
        #[arg(long)]
        fresh: bool,
        /// Short runs for smoke tests (own keys).
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Run even when the work is estimated beyond lb's soft limits.
        #[arg(long)]
        force: bool,
        /// Where figures, tables and the report go.
        #[arg(long, value_name = "DIR", default_value = "paper-figures")]
        out: PathBuf,
        /// Print the table of what each experiment's records cost even when
        /// nothing was computed (it is printed whenever something was).
        #[arg(long)]
        cost: bool,
    },
    /// The verdicts of two sides side by side: --results against --against,
    /// another results directory or a git revision: every claim whose
    /// verdict moved, with the deciding measurement on each side; exits
    /// non-zero if a required one moved.
    Diff {
        /// Manifests (default: every experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// The other side: a results directory (a copy from before a
        /// change, compared with the same manifests), or a git revision
        /// (HEAD~1, a commit, a branch), whose manifests and committed
        /// results are compared as they were.
        #[arg(long, value_name = "DIR-OR-REVISION")]
        against: String,
        /// Compare two reports (`lb reproduce --out` directories) instead:
        /// this one against the report --against names.
        #[arg(long, value_name = "DIR")]
        report: Option<PathBuf>,
        /// The --quick profile's results.
        #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
        profile: Profile,
    },
    /// A self-contained, citable artifact of an audit in a new directory: the
    /// manifests, every record they read, the report, CITATION.cff, the
    /// source, lock file and toolchain, and RO-Crate metadata (Workflow Run
    /// Crate). `lb verify` and `lb audit` run on it as they do here.
    Archive {
        /// Manifests (default: every experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// The directory written (it must not exist, or be empty).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The report to include (`lb reproduce --out`).
        #[arg(long, value_name = "DIR", default_value = "paper-figures")]
        report: PathBuf,
    },
    /// Write the JSON Schema of every model's manifest (schema/slotted.json,
    /// many.json, spn.json), generated from the types that parse them; a
    /// manifest's `#:schema` line names its own, for editors and CI. With
    /// --check, write nothing and fail if a file differs from what lb would
    /// write.
    Schema {
        /// The directory the schemas go to.
        #[arg(long, value_name = "DIR", default_value = "schema")]
        out: PathBuf,
        /// Compare instead of writing.
        #[arg(long)]
        check: bool,
    },
    /// A new manifest to start from: every key commented, a figure and a
    /// first claim to edit; validated as `lb plan` reads it before it is
    /// written (never over an existing file).
    New {
        /// The experiment's name (the file is DIR/NAME.toml).
        #[arg(value_name = "NAME")]
        name: String,
        /// The model: slotted (Zhou, Shroff and Wierman's slotted system),
        /// many (N exponential servers), spn (a processing network).
        #[arg(long, default_value = "slotted")]
        model: String,
        /// The policies, by their manifest names (experiments/README.md),
        /// separated by commas; a policy's keys in parentheses, e.g.
        /// 'JSQ,L-JSQ-Push(p_hat=0.01,d=2),L-JBA-Pull(budget=Power-of-2)'.
        /// A key a policy needs and is not given gets a value to edit.
        #[arg(long, required = true)]
        policies: Vec<String>,
        /// The loads swept (λ per server in the many-server model).
        #[arg(long, value_delimiter = ',', default_value = "0.5,0.9")]
        load: Vec<f64>,
        /// The directory it is written to.
        #[arg(long, value_name = "DIR", default_value = "experiments")]
        out: PathBuf,
        /// A work's key in DIR/references.bib: the claim is then a stand-in
        /// for it, citing it by key.
        #[arg(long, value_name = "KEY")]
        paper: Option<String>,
    },
    /// Measured coverage of lb's intervals at points whose exact answer is
    /// known: each procedure applied to independent macro-replications of the
    /// manifest's points, held to the model's named exact reference.
    Coverage {
        /// A manifest whose points have an exact answer (no calibration);
        /// not with --certificate.
        #[arg(value_name = "MANIFEST", required_unless_present = "certificate")]
        manifest: Option<PathBuf>,
        /// Certify every entry of a certificate file
        /// (experiments/coverage/certificate.toml): entries whose record is
        /// in RESULTS/coverage/ are read, the others computed and recorded.
        #[arg(long, conflicts_with_all = ["manifest", "metric", "reference"])]
        certificate: Option<PathBuf>,
        /// With --certificate: recompute entries that have a record.
        #[arg(long, requires = "certificate")]
        again: bool,
        /// The cache of the replications a coverage run reads (about 10⁵ for
        /// the certificate; macros × per for one manifest), which RESULTS
        /// does not keep.
        #[arg(long, default_value = ".lb-scratch/coverage")]
        scratch: PathBuf,
        /// The metric (a name of the model's, as `lb table --columns` lists).
        #[arg(long, required_unless_present = "certificate")]
        metric: Option<String>,
        /// The model's named exact value of the metric at each point
        /// (mm1, single_server, wr_sum_q, …).
        #[arg(long, required_unless_present = "certificate")]
        reference: Option<String>,
        /// Macro-replications per procedure and point.
        #[arg(long, default_value_t = 1000)]
        macros: usize,
        /// Replications per Student-t or Wilson interval.
        #[arg(long, default_value_t = 10)]
        per: usize,
        /// Procedures: t (Student-t), bm (batch means in one run), wilson
        /// and cp (a proportion: Wilson, Clopper–Pearson), precision (the
        /// interval of the precision rule with its pilot: --rel, --min,
        /// --step, --max), sequential (the sequential precision rule's
        /// stopping interval), stein (the precision rule with Stein's
        /// first stage, as `procedure = "stein"` runs it), two-stage
        /// (Stein's two-stage procedure by hand on the same target), t-skew and precision-skew (Willink's
        /// skewness-adjusted interval, the skewness read off the runs'
        /// batch means: a candidate).
        #[arg(long, value_delimiter = ',', default_value = "t,bm")]
        procedures: Vec<String>,
        /// precision: the relative half-width the rule stops at.
        #[arg(long, default_value_t = 0.05)]
        rel: f64,
        /// precision: the pilot's replications (sequential: its first look;
        /// stein: its first stage).
        #[arg(long, default_value_t = 4)]
        min: u32,
        /// precision: the grid n is rounded up to (sequential: replications
        /// added at each look).
        #[arg(long, default_value_t = 4)]
        step: u32,
        /// precision: the replications it stops at whatever the width.
        #[arg(long, default_value_t = 40)]
        max: u32,
        /// The intervals' level.
        #[arg(long, default_value_t = 0.95)]
        level: f64,
        /// Threads for the runs (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Run beyond lb's soft limits.
        #[arg(long)]
        force: bool,
        /// A Markdown table, CSV (one row per point and procedure, numbers as
        /// numbers) or the coverages as JSON.
        #[arg(long, value_enum, default_value = "md")]
        format: outputs::Format,
    },
    /// Verdicts on every claim of the manifests, printed; exits non-zero if a
    /// required claim is not confirmed (refuted, undecided, or missing a
    /// point it reads). Writes no file unless --out is given.
    Audit {
        /// Which claims.
        #[command(flatten)]
        claims: Claims,
        /// Also write these experiments' sections of DIR/audit.md (the other
        /// experiments' sections there are kept as they are).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// The audit's mutation check: re-audit every claim with its threshold
    /// moved k = 1, 2, 3, 5, 10 half-widths past the measurement, and its
    /// direction flipped; exits non-zero if a mutant beyond 3 half-widths is
    /// not caught by a claim not flagged insensitive.
    Mutants {
        /// Which claims.
        #[command(flatten)]
        claims: Claims,
    },
    /// The house rules at authoring time: every rule the loader applies
    /// (keys, foils, ranges, nulls, the inventories) and every rule of the
    /// registry the test suite applies to shipped manifests (prose, captions),
    /// each failure located with its fix; exits non-zero on any.
    Check {
        /// Manifests (default: every experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
    },
    /// Check every quote of a paper — claims' statements, readings and
    /// stands_for, maps' excluded readings, its inventory's quotes and
    /// settings — against your copy
    /// of its text (plain text, as extracted from its PDF), under the
    /// normalisation docs/AUDITING.md ("Quotes") states. Fails naming each
    /// quote the text does not hold, with the stretch of the text nearest
    /// it.
    Quotes {
        /// The paper, as its inventory's `authors` spells it ("Zhou,
        /// Shroff and Wierman").
        #[arg(long, value_name = "AUTHORS")]
        paper: String,
        /// Its text: one or more files (a quote passes if one holds it,
        /// e.g. the paper and a second version of its abstract).
        #[arg(value_name = "TEXT", required = true)]
        texts: Vec<PathBuf>,
        /// Manifests to read (default: every experiments/*.toml, and the
        /// inventories beside them).
        #[arg(long, value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
    },
    /// The dispatching preference of Zhou, Shroff and Wierman's rules
    /// (§2.2, Definitions 4–6), computed exactly from each rule's law: its
    /// least δ over every estimate state of a small system, or, with --at,
    /// its preference ∆ at one state. docs/AUDITING.md ("Dispatching
    /// preference") says how ties are ordered.
    Preference {
        /// Service rates μ_n, comma-separated (2 to 7 servers for the search
        /// over every state; any number with --at).
        #[arg(long, value_delimiter = ',', default_value = "0.2,0.2,0.8,0.8")]
        rates: Vec<f64>,
        /// Rules: l-jsq, l-jba, l-pod:D, weighted-random, random; `:lowest`
        /// after l-jsq or l-pod:D for ties to the lowest index (default:
        /// each of them, with D = 2).
        #[arg(long = "rule", value_name = "RULE")]
        rules: Vec<String>,
        /// One state: the estimates Q̃_mn, comma-separated, one per server.
        #[arg(long, value_delimiter = ',', value_name = "ESTIMATES")]
        at: Vec<u64>,
    },
    /// Write the whole cache as one tidy Parquet file: a row per (record,
    /// replication, metric), with the model, policy, fixed parameters and
    /// the experiments that plan the record.
    Export {
        /// Manifests that name the experiments (default: every
        /// experiments/*.toml); records none of them plans are exported too,
        /// with no experiment.
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// The Parquet file written.
        #[arg(long, value_name = "FILE", default_value = "lb-export.parquet")]
        out: PathBuf,
    },
    /// Recompute cached records and compare them bit for bit.
    Verify {
        /// Which records.
        #[command(flatten)]
        records: Records,
    },
    /// Stamp every record that does not lead to a commit of HEAD's history
    /// (computed from a modified tree, at a commit since rewritten, or
    /// before lb kept manifest hashes): recompute it bit for bit and, if
    /// identical, write into its provenance this clean commit and the
    /// SHA-256 of the manifests that plan its key. Needs a clean tree; the
    /// numbers are not touched.
    Stamp {
        /// The manifests whose plans name the records' keys (default: every
        /// experiments/*.toml).
        #[arg(value_name = "MANIFEST")]
        manifests: Vec<PathBuf>,
        /// Also recompute the replications of these manifests' keys that keep
        /// no CPU time (computed before lb kept it) and keep the recompute's
        /// CPU time beside their wall time: the cost table then reads it.
        #[arg(long)]
        retime: bool,
        /// Which records.
        #[command(flatten)]
        records: Records,
    },
}

/// The claims `lb audit` and `lb mutants` read, and how they print.
#[derive(clap::Args, Debug)]
pub struct Claims {
    /// Manifests (default: every experiments/*.toml).
    #[arg(value_name = "MANIFEST")]
    pub manifests: Vec<PathBuf>,
    /// Markdown (a section per claim), CSV (a row per claim, or per mutant)
    /// or JSON (the claims with their deciding points, or the mutants).
    #[arg(long, value_enum, default_value = "md")]
    pub format: outputs::Format,
    /// The --quick profile's results.
    #[arg(long = "quick", action = clap::ArgAction::SetTrue, value_parser = profile_flag())]
    pub profile: Profile,
}

/// The records `lb verify` and `lb stamp` recompute, and on how many threads.
#[derive(clap::Args, Debug)]
pub struct Records {
    /// Only K records, chosen by a seeded shuffle.
    #[arg(long, value_name = "K")]
    pub sample: Option<usize>,
    /// Seed of the sample.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Only records whose key starts with this prefix.
    #[arg(long, value_name = "KEY-PREFIX")]
    pub key: Option<String>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `lb cache`'s actions.
#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// One line per key: kind, policy, profile, replications, problems.
    Ls,
    /// Check every record's checksum and place (no recompute: that is `lb
    /// verify`); exit non-zero if any is damaged.
    Check,
    /// Where the replication records came from: how many lead to a commit
    /// in HEAD's history computed from a clean tree, how many were computed
    /// from a modified tree or at a commit not in the history, how many
    /// carry their manifests' hashes.
    Lineage {
        /// Exit non-zero, listing them, if any record leads to no commit of
        /// HEAD's history with its manifests' hashes (computed there from a
        /// clean tree, or re-verified there by `lb stamp`).
        #[arg(long)]
        strict: bool,
    },
    /// Take the records of a recompute (`lb reproduce --fresh` writes one
    /// beside the cache) into the cache, rewriting only what changed: a
    /// record whose numbers are the cache's, provenance aside, keeps the
    /// cache's file byte for byte, so a recompute that reproduces them adds
    /// nothing to the repository's history.
    Adopt {
        /// The results directory of the recompute.
        #[arg(value_name = "DIR")]
        from: PathBuf,
    },
    /// Fold the loose records (one file each, as runs write them) into
    /// their buckets' packs, and remove the loose files packed. Packs are
    /// deterministic: the same records give the same bytes.
    Pack {
        /// Write nothing; exit non-zero if any record is loose or any pack
        /// cannot be read (the committed cache is packed).
        #[arg(long)]
        check: bool,
    },
    /// Remove temporary files of dead runs, damaged records and unheld locks.
    Gc {
        /// Say what would be removed, remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// Also remove every key none of these manifests (full and quick
        /// profiles) refers to.
        #[arg(long, value_name = "MANIFEST", num_args = 1..)]
        unreferenced: Vec<PathBuf>,
    },
}

/// What lb says when interrupted, then it ends with the signal's status
/// (128 + the signal, as a shell reports it).
#[cfg(unix)]
extern "C" fn on_interrupt(sig: libc::c_int) {
    const MSG: &[u8] = b"\nlb: interrupted. Every record written so far is kept (records are \
written whole); run the same command again to compute only the rest.\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe.
    unsafe {
        libc::write(2, MSG.as_ptr().cast(), MSG.len());
        libc::_exit(128 + sig);
    }
}

/// `--quick` read as the profile it selects.
fn profile_flag() -> impl clap::builder::TypedValueParser<Value = Profile> {
    clap::builder::BoolishValueParser::new()
        .map(|on| if on { Profile::Quick } else { Profile::Full })
}

fn main() -> ExitCode {
    // `lb show KEY | head` ends quietly when head does, as other Unix tools.
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C and kill say what was kept before lb ends: records
    // are written whole (a temporary file, then a rename), so every record
    // written is valid and a rerun computes only the rest.
    #[cfg(unix)]
    // SAFETY: installing a handler before any thread starts; the handler
    // only calls the async-signal-safe write(2) and _exit(2).
    unsafe {
        let h = on_interrupt as extern "C" fn(libc::c_int);
        libc::signal(libc::SIGINT, h as libc::sighandler_t);
        libc::signal(libc::SIGTERM, h as libc::sighandler_t);
    }
    // Where lb runs: the project above the working directory, as git finds
    // its repository (lb-pipeline's `project`).
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let args = match lb_pipeline::project::locate(&cwd, std::env::args_os().collect()) {
        Ok(lb_pipeline::project::Located::Here(args)) => args,
        Ok(lb_pipeline::project::Located::Root(root, args)) => {
            if let Err(e) = std::env::set_current_dir(&root) {
                eprintln!("error: cannot enter the project at {}: {e}", root.display());
                return ExitCode::FAILURE;
            }
            args
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cli = Cli::parse_from(args);
    match commands::dispatch(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every argument of every subcommand says what it is for.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments() {
                let id = a.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for s in cmd.get_subcommands() {
                if s.get_about().is_none() && s.get_name() != "help" {
                    missing.push(format!("{path} {} (the subcommand)", s.get_name()));
                }
                walk(s, &format!("{path} {}", s.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "lb", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
