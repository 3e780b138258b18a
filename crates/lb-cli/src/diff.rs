//! `lb diff --results A --against B [MANIFEST…]`: the verdicts of two
//! results directories (two revisions' caches, or a cache before and after
//! a change) side by side — every claim whose verdict moved, with the
//! deciding measurement on each side, which is the why. Exits non-zero when
//! a required claim's verdict moved: a commit that changes numbers says "no
//! verdict moved" with this, not by hand.

use lb_pipeline::audit::audit;
use lb_runner::Profile;
use lb_runner::cache::Cache;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub fn diff(a: &Cache, against: &Path, manifests: &[PathBuf], quick: bool) -> Res {
    let b = Cache::new(against);
    let manifests = lb_pipeline::manifests_or_all(manifests)?;
    let loaded = lb_runner::load_all(&manifests, Profile::from_quick(quick))?;
    let (va, vb) = (audit(a, &loaded), audit(&b, &loaded));
    let mut moved = 0;
    let mut required = 0;
    let mut claims = 0;
    for (ea, eb) in va.claims.iter().zip(&vb.claims) {
        for (ca, cb) in ea.iter().zip(eb) {
            claims += 1;
            if ca.verdict == cb.verdict {
                continue;
            }
            moved += 1;
            required += usize::from(ca.required);
            let side = |c: &lb_analysis::audit::ClaimResult| match (c.deciding(), c.missing.first())
            {
                (Some(k), _) => lb_analysis::audit::describe(c, k),
                (None, Some(m)) => format!(
                    "missing data ({m}{})",
                    if c.missing.len() > 1 {
                        format!(" and {} more", c.missing.len() - 1)
                    } else {
                        String::new()
                    }
                ),
                (None, None) => "no deciding point".into(),
            };
            println!(
                "{}{} / {}: {} → {}\n    {}: {}\n    {}: {}",
                if ca.required { "REQUIRED " } else { "" },
                ca.experiment,
                ca.id,
                ca.verdict.word(),
                cb.verdict.word(),
                a.root().display(),
                side(ca),
                b.root().display(),
                side(cb)
            );
        }
    }
    println!(
        "{claims} claims: {moved} verdict(s) moved between {} and {}{}",
        a.root().display(),
        b.root().display(),
        if required > 0 {
            format!(", {required} of them required")
        } else {
            String::new()
        }
    );
    Ok(if required > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
