//! Where lb runs: the project, found as git and cargo find theirs.
//!
//! A project is a directory holding `experiments/` and `results/`. lb reads
//! both relative to the project root, so run from a subdirectory it walks
//! up to the root and runs there, with the paths named on the command line
//! read from where they were typed. Outside any project it refuses rather
//! than read an empty cache when a command would read the project's
//! manifests (`lb audit`, `lb reproduce`) or names a manifest that belongs
//! to a project; a cache named with `--results`, or manifests of no project
//! (`lb run m.toml` in an empty directory starts a cache there), run where
//! they are.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Options whose value is a path, read from the working directory the user
/// typed it in.
const PATH_OPTIONS: [&str; 5] = [
    "--results",
    "--out",
    "--report",
    "--certificate",
    "--scratch",
];

/// Subcommands that need no project: they write one, or only print.
const ANYWHERE: [&str; 3] = ["new", "schema", "help"];

/// Whether `d` is a project root: `experiments/` and `results/` in it.
fn is_root(d: &Path) -> bool {
    d.join("experiments").is_dir() && d.join("results").is_dir()
}

/// Whether lb treats `d` as where it runs: it holds `experiments/` or
/// `results/` (a directory where `lb run` started a cache counts).
fn is_here(d: &Path) -> bool {
    d.join("experiments").is_dir() || d.join("results").exists()
}

/// The nearest ancestor of `d` (itself excluded) that is a project root.
fn root_above(d: &Path) -> Option<PathBuf> {
    d.ancestors()
        .skip(1)
        .find(|a| is_root(a))
        .map(Path::to_path_buf)
}

/// What lb does about where it runs.
#[derive(Debug, PartialEq)]
pub enum Located {
    /// Run here, with these arguments (unchanged, or made absolute).
    Here(Vec<OsString>),
    /// Change to this root first, then run with these arguments.
    Root(PathBuf, Vec<OsString>),
}

/// Decides where lb runs, from the working directory `cwd` and the
/// command line `args` (the program name first). Err: why lb cannot run
/// here, with the fix.
pub fn locate(cwd: &Path, args: Vec<OsString>) -> Result<Located, String> {
    if is_here(cwd) {
        return Ok(Located::Here(args));
    }
    let sub = subcommand(&args);
    if let Some(root) = root_above(cwd) {
        return Ok(Located::Root(root, absolute(cwd, args)));
    }
    // No subcommand (`lb --help`, `lb -V`), one that needs no project, or a
    // cache named: lb runs here.
    if sub.is_none_or(|s| ANYWHERE.contains(&s.as_str())) || names(&args, "--results") {
        return Ok(Located::Here(args));
    }
    // Outside every project: a manifest named inside one belongs to it.
    for a in positional(&args) {
        let p = cwd.join(a);
        if p.is_file()
            && let Some(root) = p.canonicalize().ok().as_deref().and_then(root_above)
        {
            return Err(format!(
                "{} belongs to the lb project at {root}, but lb runs in {cwd}, outside any \
                 project, where it would read an empty cache: run it from the project \
                 (cd {root}), or name the project's cache with --results {root}/results",
                p.display(),
                root = root.display(),
                cwd = cwd.display(),
            ));
        }
    }
    if positional(&args).next().is_some() {
        // Manifests (or keys, or a cache subcommand) of no project: lb
        // runs here, where `lb run` starts a cache, and names what it
        // cannot read.
        return Ok(Located::Here(args));
    }
    Err(format!(
        "not inside an lb project: neither {} nor a directory above it holds experiments/ \
         and results/. Run lb from a clone of the repository (or a directory under it), \
         or name a cache with --results DIR",
        cwd.display()
    ))
}

/// The subcommand: the first argument that is not an option.
fn subcommand(args: &[OsString]) -> Option<String> {
    positional_all(args)
        .next()
        .map(|a| a.to_string_lossy().into_owned())
}

/// Whether option `name` is given (as `name VALUE` or `name=VALUE`).
fn names(args: &[OsString], name: &str) -> bool {
    args.iter().skip(1).any(|a| {
        let a = a.to_string_lossy();
        a == name || a.starts_with(&format!("{name}="))
    })
}

/// The arguments that are not options nor option values, program name
/// excluded.
fn positional_all(args: &[OsString]) -> impl Iterator<Item = &OsString> {
    let mut skip_next = false;
    args.iter().skip(1).filter(move |a| {
        let s = a.to_string_lossy();
        if std::mem::take(&mut skip_next) {
            return false;
        }
        if PATH_OPTIONS.contains(&s.as_ref()) {
            skip_next = true;
            return false;
        }
        !s.starts_with('-')
    })
}

/// The positional arguments after the subcommand.
fn positional(args: &[OsString]) -> impl Iterator<Item = &OsString> {
    positional_all(args).skip(1)
}

/// `args` with every path the user typed made absolute from `cwd`: the
/// values of [`PATH_OPTIONS`] always, and positional arguments that name
/// an existing file or directory there (a manifest named from the project
/// root, `experiments/x.toml`, does not exist from a subdirectory and is
/// left to be read from the root).
fn absolute(cwd: &Path, args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut path_next = false;
    for (i, a) in args.into_iter().enumerate() {
        let s = a.to_string_lossy().into_owned();
        if i == 0 {
            out.push(a);
        } else if std::mem::take(&mut path_next) {
            out.push(cwd.join(&a).into_os_string());
        } else if PATH_OPTIONS.contains(&s.as_str()) {
            path_next = true;
            out.push(a);
        } else if let Some((opt, v)) = s.split_once('=')
            && PATH_OPTIONS.contains(&opt)
        {
            out.push(format!("{opt}={}", cwd.join(v).display()).into());
        } else if !s.starts_with('-') && cwd.join(&a).exists() {
            out.push(cwd.join(&a).into_os_string());
        } else {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        std::iter::once("lb")
            .chain(a.iter().copied())
            .map(OsString::from)
            .collect()
    }

    /// A project root with a subdirectory, and a directory outside it.
    fn layout() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        for d in ["experiments", "results", "crates/x"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("experiments/m.toml"), "").unwrap();
        let out = t.path().join("elsewhere");
        std::fs::create_dir_all(&out).unwrap();
        (t, root.clone(), root.join("crates/x"), out)
    }

    #[test]
    fn at_the_root_nothing_changes() {
        let (_t, root, _, _) = layout();
        let a = args(&["plan", "experiments/m.toml"]);
        assert_eq!(locate(&root, a.clone()), Ok(Located::Here(a)));
    }

    #[test]
    fn from_a_subdirectory_lb_runs_at_the_root_with_the_typed_paths() {
        let (_t, root, sub, _) = layout();
        std::fs::write(sub.join("local.toml"), "").unwrap();
        let a = args(&[
            "plan",
            "local.toml",
            "experiments/m.toml",
            "--out",
            "figs",
            "--results=r",
        ]);
        let Ok(Located::Root(r, got)) = locate(&sub, a) else {
            panic!("not found")
        };
        assert_eq!(r, root);
        let want: Vec<OsString> = vec![
            "lb".into(),
            "plan".into(),
            sub.join("local.toml").into(),
            // Not a file from the subdirectory: read from the root.
            "experiments/m.toml".into(),
            "--out".into(),
            sub.join("figs").into(),
            format!("--results={}", sub.join("r").display()).into(),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn outside_a_project_lb_says_so_and_how_to_point_at_one() {
        let (_t, root, _, out) = layout();
        let e = locate(&out, args(&["audit"])).unwrap_err();
        assert!(
            e.contains("not inside an lb project") && e.contains("--results"),
            "{e}"
        );
        let m = root.join("experiments/m.toml");
        let e = locate(&out, args(&["plan", m.to_str().unwrap()])).unwrap_err();
        assert!(
            e.contains("belongs to the lb project at") && e.contains("cd "),
            "{e}"
        );
        // Told where the cache is, or asked for help, it does as told.
        let a = args(&["plan", m.to_str().unwrap(), "--results", "r"]);
        assert_eq!(locate(&out, a.clone()), Ok(Located::Here(a)));
        for a in [args(&["--help"]), args(&["new", "x"]), args(&["schema"])] {
            assert_eq!(locate(&out, a.clone()), Ok(Located::Here(a)));
        }
        // A manifest of no project starts one here.
        std::fs::write(out.join("m.toml"), "").unwrap();
        let a = args(&["run", "m.toml"]);
        assert_eq!(locate(&out, a.clone()), Ok(Located::Here(a)));
    }
}
