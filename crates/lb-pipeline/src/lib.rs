//! # lb-pipeline — lb's pipeline as a library
//!
//! What the `lb` commands do, callable from Rust (tests, scripts, future
//! bindings) without a command line: every function here takes loaded
//! experiments ([`lb_manifest::load_all`], the one loader) or manifest paths,
//! and returns what it found or wrote; it prints nothing. lb-cli parses
//! arguments, calls these, and prints.
//!
//! - [`compute`]: a thread pool, the soft-limit check on estimated cost,
//!   and the runs of plans into the cache;
//! - [`audit`]: every claim's verdict and every robustness map, the audit's
//!   pages and its gate;
//! - [`coverage`]: measured coverage of the intervals at points with an
//!   exact answer (`lb coverage`);
//! - [`decide`]: inconclusive claims run further, claim by claim, until
//!   decided or out of budget, with alpha spending over their looks (`lb
//!   decide`);
//! - [`reproduce`]: run, then write each experiment's tables, figures and
//!   report sections, and assemble the pages;
//! - [`export`]: the whole cache as one tidy Parquet file;
//! - [`slurm`]: the job-array scripts of sharded work, and their submission;
//! - [`table`]: one experiment's table.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

/// A line into a text (writing to a String cannot fail).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!($($t)*);
    }};
}

/// `git ARGS` in the current directory: its trimmed standard output, or
/// None where git is missing, this is no repository, or the command fails.
pub(crate) fn git(args: &[&str]) -> Option<String> {
    let o = std::process::Command::new("git").args(args).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

pub mod archive;
pub mod audit;
pub mod compute;
pub mod coverage;
pub mod decide;
pub mod diff;
pub mod export;
mod manifests;
pub mod plan_text;
pub mod project;
pub mod reproduce;
pub mod run_text;
pub mod show;
pub mod slurm;
pub mod store_text;
pub mod table;

/// Errors of the pipeline: a located manifest error, an I/O error, a
/// polars error, or a message, all said in words.
pub type Error = Box<dyn std::error::Error>;

pub use manifests::{existing, manifests_or_all};

/// What a command says, on standard output and standard error, and whether
/// it succeeded: lb-cli prints it and exits accordingly.
#[derive(Debug)]
pub struct Text {
    /// What it prints on standard output.
    pub out: String,
    /// What it prints on standard error.
    pub err: String,
    /// Whether it succeeded.
    pub ok: bool,
}

impl Default for Text {
    fn default() -> Text {
        Text {
            out: String::new(),
            err: String::new(),
            ok: true,
        }
    }
}

impl Text {
    /// Adds what `more` says after this text; fails if either fails.
    pub(crate) fn append(&mut self, more: Text) {
        self.out.push_str(&more.out);
        self.err.push_str(&more.err);
        self.ok &= more.ok;
    }
}

/// A command's text, or why it could not run.
pub type Said = Result<Text, Box<dyn std::error::Error>>;
