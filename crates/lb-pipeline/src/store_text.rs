//! The text of the commands on the results store: `lb cache ls`, `check`,
//! `gc`, `adopt`, `lineage`, `lb verify` and `lb stamp`, each a [`Text`]:
//! what to print on standard output and on standard error, and whether the
//! command succeeded; lb-cli prints it.

use crate::{Said, Text, existing};
use lb_store::cache::Cache;
use lb_store::run::Progress;
use lb_store::{maintain, verify};
use std::fmt::Write as _;
use std::path::PathBuf;

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1}M", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.1}K", bytes as f64 / 1024.0)
    }
}

/// `lb cache ls`: one line per key.
pub fn list(cache: &Cache) -> Said {
    let mut text = Text::default();
    existing(cache)?;
    let entries = maintain::list(cache);
    say!(
        text.out,
        "{:<12}  {:<11}  {:<6}  {:>5}  {:>8}  {:>7}  what",
        "key",
        "kind",
        "profile",
        "reps",
        "problems",
        "size"
    );
    for e in &entries {
        say!(
            text.out,
            "{:<12}  {:<11}  {:<7} {:>5}  {:>8}  {:>7}  {}",
            e.key.short(),
            e.kind,
            e.profile,
            e.replications,
            e.problems,
            human(e.bytes),
            e.what
        );
    }
    say!(
        text.out,
        "{} keys, {} replication records, {} problem files in {}",
        entries.len(),
        entries.iter().map(|e| e.replications as u64).sum::<u64>(),
        entries.iter().map(|e| e.problems as u64).sum::<u64>(),
        cache.root().display()
    );
    Ok(text)
}

/// `lb cache check`: every record's checksum and place; fails on a damaged one.
pub fn check(cache: &Cache) -> Said {
    let mut text = Text::default();
    existing(cache)?;
    let checks = maintain::check_all(cache);
    let (mut bad, mut left) = (0, 0);
    for c in &checks {
        if let Some(why) = &c.problem {
            if c.leftover {
                left += 1;
                say!(text.out, "LEFTOVER {}: {why}", c.path.display());
            } else {
                bad += 1;
                say!(text.out, "BAD {}: {why}", c.path.display());
            }
        }
    }
    say!(
        text.out,
        "{} files checked: {} valid records, {bad} damaged, {left} leftovers",
        checks.len(),
        checks.len() - bad - left,
    );
    if bad + left > 0 {
        say!(
            text.out,
            "`lb run` recomputes damaged records; `lb cache gc` removes leftovers"
        );
    }
    text.ok = bad == 0;
    Ok(text)
}

/// `lb cache gc`: temporary files of dead runs, damaged records, unheld
/// locks, and with `unreferenced` every key none of those manifests plans.
pub fn gc(cache: &Cache, dry_run: bool, unreferenced: &[PathBuf]) -> Said {
    let mut text = Text::default();
    let keep = if unreferenced.is_empty() {
        None
    } else {
        Some(crate::compute::referenced(cache, unreferenced)?)
    };
    let g = maintain::gc(cache, keep.as_ref(), dry_run)?;
    for (p, why) in &g.removed {
        say!(
            text.out,
            "{} {}: {why}",
            if dry_run { "would remove" } else { "removed" },
            p.display()
        );
    }
    say!(
        text.out,
        "{} {} item(s)",
        if dry_run { "would remove" } else { "removed" },
        g.removed.len()
    );
    Ok(text)
}

/// `lb verify`: recompute records and compare them bit for bit.
pub fn verify(
    cache: &Cache,
    sample: Option<usize>,
    seed: u64,
    prefix: Option<&str>,
    threads: Option<usize>,
    progress: &dyn Progress,
) -> Said {
    let mut text = Text::default();
    existing(cache)?;
    if let Some(p) = prefix {
        // The same rule as `lb show`: a hex prefix of exactly one key.
        crate::show::find_key(cache, p)?;
    }
    if sample == Some(0) {
        return Err("--sample 0 verifies nothing: give a sample size ≥ 1, or leave it out".into());
    }
    let mut items = verify::items(cache, prefix);
    if let Some(k) = sample {
        items = verify::sample(items, k, seed);
    } else if prefix.is_none() && items.len() > 100 {
        // The whole cache: say what it costs before it starts.
        let cpu: f64 = cache
            .keys()
            .iter()
            .flat_map(|(k, _)| lb_store::maintain::provenances(cache, k))
            .map(|(_, p)| p.seconds())
            .sum();
        progress.log(&format!(
            "verifying all {} records: about {:.0} CPU-seconds, as long as computing them took \
             (their provenance), spread over the threads; `lb verify --sample K` checks K of \
             them, `--key PREFIX` one point",
            items.len(),
            cpu
        ));
    }
    if items.is_empty() {
        return Err(format!(
            "nothing to verify: {} holds no record{}",
            cache.root().display(),
            prefix
                .map(|p| format!(" under key {p}"))
                .unwrap_or_default()
        )
        .into());
    }
    let verdicts =
        crate::compute::pool(threads)?.install(|| verify::verify(cache, &items, progress));
    let bad: Vec<_> = verdicts.iter().filter(|v| v.problem.is_some()).collect();
    for v in &bad {
        say!(
            text.out,
            "MISMATCH {}: {}",
            v.path.display(),
            v.problem.as_deref().unwrap_or("")
        );
    }
    say!(
        text.out,
        "{} record(s) recomputed: {} identical, {} not",
        verdicts.len(),
        verdicts.len() - bad.len(),
        bad.len()
    );
    text.ok = bad.is_empty();
    Ok(text)
}

/// `lb stamp`: re-verify, at this clean commit, the records that
/// lead to no commit of the history, and stamp those that recompute bit for
/// bit. With `retime`, also the replications of the manifests' keys that
/// keep no CPU time, keeping the recompute's.
#[allow(clippy::too_many_arguments)]
pub fn stamp(
    cache: &Cache,
    sample: Option<usize>,
    seed: u64,
    prefix: Option<&str>,
    threads: Option<usize>,
    manifests: &[PathBuf],
    retime: bool,
    progress: &dyn Progress,
) -> Said {
    let mut text = Text::default();
    use std::collections::BTreeMap;
    existing(cache)?;
    let repo = std::env::current_dir()?;
    let at = lb_store::provenance::Verification::at_clean_commit(&repo)?;
    // The manifests that plan each key, by path, with their text's hash.
    let paths = crate::manifests::manifests_or_all(manifests)?;
    let mut planned: BTreeMap<lb_manifest::Key, BTreeMap<String, String>> = BTreeMap::new();
    for m in &paths {
        let sha = lb_store::provenance::sha256_hex(&std::fs::read(m)?);
        for profile in [lb_manifest::Profile::Full, lb_manifest::Profile::Quick] {
            let e = lb_manifest::load(m, profile)?;
            for plan in std::iter::once(&e.plan).chain(e.variant_plans()) {
                for st in lb_store::run::status(cache, plan) {
                    let keys = st.key.into_iter().chain(st.calibration.map(|c| c.0));
                    for k in keys {
                        planned
                            .entry(k)
                            .or_default()
                            .insert(m.display().to_string(), sha.clone());
                    }
                }
            }
        }
    }
    let mut items = verify::items(cache, prefix);
    if retime {
        items.retain(|i| matches!(i, verify::Item::Replication(k, _) if planned.contains_key(k)));
    }
    if let Some(k) = sample {
        items = verify::sample(items, k, seed);
    }
    let known = std::sync::Mutex::new(BTreeMap::<String, bool>::new());
    let in_history = |c: &str| {
        if let Some(b) = known.lock().expect("not poisoned").get(c) {
            return *b;
        }
        let b = lb_store::provenance::in_history(&repo, c).unwrap_or(false);
        known.lock().expect("not poisoned").insert(c.to_string(), b);
        b
    };
    let done = crate::compute::pool(threads)?
        .install(|| verify::stamp(cache, &items, &planned, &at, &in_history, retime, progress));
    let count = |f: &dyn Fn(&verify::Stamped) -> bool| done.iter().filter(|(_, s)| f(s)).count();
    for (item, s) in &done {
        match s {
            verify::Stamped::Problem(why) => say!(text.out, "NOT STAMPED {item:?}: {why}"),
            verify::Stamped::Unplanned => {
                say!(
                    text.out,
                    "NOT STAMPED {item:?}: no manifest of {} plans its key",
                    paths.len()
                )
            }
            _ => {}
        }
    }
    let problems = count(&|s| matches!(s, verify::Stamped::Problem(_)));
    let unplanned = count(&|s| *s == verify::Stamped::Unplanned);
    say!(
        text.out,
        "{} record(s): {} stamped at {} (recomputed bit for bit), {} already leading to a \
         commit, {} planned by no manifest, {} not identical or unreadable",
        done.len(),
        count(&|s| *s == verify::Stamped::Stamped),
        &at.commit[..at.commit.len().min(10)],
        count(&|s| *s == verify::Stamped::Leads),
        unplanned,
        problems
    );
    text.ok = problems == 0;
    // A stamp rewrites records loose, over their packed versions: fold them
    // back in, so the cache stays packed.
    if count(&|s| *s == verify::Stamped::Stamped) > 0 {
        text.append(packed(cache)?);
    }
    Ok(text)
}

/// `lb cache pack`: every bucket's loose records folded into its pack;
/// with `check`, nothing written, and a failure if any record is loose or
/// any pack cannot be read (what CI asks of the committed cache).
pub fn pack(cache: &Cache, check: bool) -> Said {
    existing(cache)?;
    if !check {
        return packed(cache);
    }
    let mut text = Text::default();
    let loose = lb_store::packing::loose_records(cache);
    for p in &loose {
        match cache.place_problem(p) {
            Some(why) if lb_store::cache::is_misnamed(&why) => {
                say!(text.out, "MISNAMED {}: {why}", p.display())
            }
            _ => say!(text.out, "LOOSE {}", p.display()),
        }
    }
    let mut damaged = 0;
    for b in cache.buckets() {
        if let Some(Err(why)) = cache.pack(&b) {
            damaged += 1;
            say!(text.out, "BAD {}: {why}", cache.pack_path(&b).display());
        }
    }
    let misfiled = cache.misfiled_keys();
    for p in &misfiled {
        say!(
            text.out,
            "MISFILED {}: a key directory under another bucket, where no reader looks \
             (`lb cache gc` removes it)",
            p.display()
        );
    }
    for p in cache.packs_aside() {
        damaged += 1;
        say!(
            text.out,
            "BAD {}: a damaged pack moved aside (`lb cache gc` removes it)",
            p.display()
        );
    }
    say!(
        text.out,
        "{} loose record(s), {damaged} damaged pack(s), {} misfiled key(s) in {}",
        loose.len(),
        misfiled.len(),
        cache.root().display()
    );
    if !loose.is_empty() {
        say!(
            text.out,
            "`lb cache pack` folds loose records into their packs"
        );
    }
    let changed = committed_changes(cache);
    if !changed.is_empty() {
        say!(
            text.out,
            "{} file(s) of {} differ from the last commit. {}",
            changed.len(),
            cache.root().display(),
            restore_hint(cache)
        );
    }
    text.ok = loose.is_empty() && damaged == 0 && misfiled.is_empty();
    Ok(text)
}

/// The files of the cache that differ from the repository's last commit
/// (`git status`), empty where the cache is not in a repository.
fn committed_changes(cache: &Cache) -> Vec<String> {
    let root = cache.root().display().to_string();
    crate::git(&["status", "--porcelain", "--", &root])
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// How to leave a committed cache as it was: restore it from git, or run
/// against a copy.
pub(crate) fn restore_hint(cache: &Cache) -> String {
    let root = cache.root().display();
    if crate::git(&["rev-parse", "--is-inside-work-tree"]).is_some() {
        format!(
            "To leave the committed cache as it was, `git restore --source=HEAD --staged \
             --worktree -- {root}` and `git clean -fd -- {root}` put it back (the new records \
             are then recomputed when next needed), or run with `--results DIR` against a copy \
             (`cp -r {root} DIR`)"
        )
    } else {
        format!(
            "To leave {root} as it was, run with `--results DIR` against a copy (`cp -r {root} DIR`)"
        )
    }
}

/// Folds the loose records into packs, and says what it did.
fn packed(cache: &Cache) -> Said {
    let mut text = Text::default();
    let done = lb_store::packing::pack_all(cache)?;
    for p in &done {
        for (path, why) in &p.left {
            say!(text.err, "  left loose {}: {why}", path.display());
        }
        if let Some(d) = &p.damaged_pack {
            say!(text.err, "  a damaged pack moved aside to {}", d.display());
        }
        if let Some(why) = &p.refused {
            say!(
                text.err,
                "  not packed {}: {why}",
                cache.pack_path(&p.bucket).display()
            );
            text.ok = false;
        }
    }
    say!(
        text.out,
        "packed {} loose record(s); {} of {} pack(s) rewritten",
        done.iter().map(|p| p.packed).sum::<usize>(),
        done.iter().filter(|p| p.rewritten).count(),
        done.len()
    );
    Ok(text)
}

/// `lb cache adopt DIR`: the records of a recompute taken into the cache,
/// only what changed rewritten, then packed.
pub fn adopt(cache: &Cache, from: &std::path::Path) -> Said {
    let mut text = Text::default();
    let source = Cache::new(from);
    existing(&source)?;
    let a = maintain::adopt(cache, &source)?;
    say!(
        text.out,
        "{} into {}: {} record(s) kept as they are, {} replaced, {} new (kept: the same \
         numbers, file and provenance unchanged; replaced: numbers that differ, or a damaged \
         record)",
        from.display(),
        cache.root().display(),
        a.kept,
        a.replaced.len(),
        a.new
    );
    for p in &a.replaced {
        say!(text.out, "  replaced {}", p.display());
    }
    for (p, why) in &a.skipped {
        say!(text.err, "  skipped {}: {why}", p.display());
    }
    if !a.skipped.is_empty() {
        say!(
            text.err,
            "{} file(s) of {} are not valid records and were left out; `lb --results {} \
             cache check` lists them",
            a.skipped.len(),
            from.display(),
            from.display()
        );
        text.ok = false;
        return Ok(text);
    }
    text.append(packed(cache)?);
    Ok(text)
}

/// `lb cache lineage`: where the records came from; with `strict`, a
/// failure listing every record that leads to no commit of the history.
pub fn lineage(cache: &Cache, strict: bool) -> Said {
    let mut text = Text::default();
    existing(cache)?;
    let repo = std::env::current_dir()?;
    let l = maintain::lineage(cache, &repo);
    let pct = |n: usize| 100.0 * n as f64 / l.records.max(1) as f64;
    say!(
        text.out,
        "{} records (replications, calibrations, precision outcomes) in {}:",
        l.records,
        cache.root().display()
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) computed from a clean tree at a commit in HEAD's history",
        l.clean_in_history,
        pct(l.clean_in_history)
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) computed from a modified tree (tracked files or manifests)",
        l.dirty,
        pct(l.dirty)
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) naming a commit not in HEAD's history{}",
        l.not_in_history,
        pct(l.not_in_history),
        if l.shallow {
            " (this clone is shallow: `git fetch --unshallow` brings the rest)"
        } else {
            ""
        }
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) naming no commit",
        l.no_commit,
        pct(l.no_commit)
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) carrying their manifests' hashes",
        l.with_manifest_hash,
        pct(l.with_manifest_hash)
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) re-verified bit for bit at a clean commit in HEAD's history (lb stamp)",
        l.verified_in_history,
        pct(l.verified_in_history)
    );
    say!(
        text.out,
        "  {:>6} ({:.1}%) leading to no commit of the history with their manifests' hashes",
        l.nowhere.len(),
        pct(l.nowhere.len())
    );
    if !strict || l.nowhere.is_empty() {
        return Ok(text);
    }
    for (path, why) in l.nowhere.iter().take(20) {
        say!(text.err, "  {}: {why}", path.display());
    }
    if l.nowhere.len() > 20 {
        say!(text.err, "  … and {} more", l.nowhere.len() - 20);
    }
    if l.shallow {
        say!(
            text.err,
            "error: {} record(s) lead to no commit of HEAD's history, and this clone is shallow \
             (`git clone --depth`): the commits they name may be in the history it left out. \
             Fetch it with `git fetch --unshallow`, then run `lb cache lineage` again",
            l.nowhere.len()
        );
    } else {
        say!(
            text.err,
            "error: {} record(s) lead to no commit of HEAD's history with their manifests' hashes: \
             commit the manifests and code, then run `lb stamp` from the clean tree (or recompute \
             them from it)",
            l.nowhere.len()
        );
    }
    text.ok = false;
    Ok(text)
}
