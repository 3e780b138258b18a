//! `lb new NAME --model M --policies A,B --load X,Y`: a manifest to start
//! from, every key commented, a figure and a first claim to edit. The text
//! is validated as `lb plan` would before it is written, so `lb plan` on it
//! works at once; an existing file is never overwritten.

use crate::Profile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The manifest written, or why not; Ok is the line that says where.
type Res = Result<String, Box<dyn std::error::Error>>;

/// A policy as `--policies` names it: `NAME` or `NAME(key=value,…)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyArg {
    /// The manifest's `spec`.
    pub spec: String,
    /// Its keys, in the order given, values as typed.
    pub keys: Vec<(String, String)>,
}

impl PolicyArg {
    /// The policy's label in the manifest: its name, with its keys when
    /// another policy has the same name.
    fn label(&self, all: &[PolicyArg]) -> String {
        let twins = all
            .iter()
            .filter(|p| p.spec.eq_ignore_ascii_case(&self.spec))
            .count();
        if twins > 1 && !self.keys.is_empty() {
            let keys: Vec<String> = self
                .keys
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            format!("{} ({})", self.spec, keys.join(", "))
        } else {
            self.spec.clone()
        }
    }
}

/// The policies of `--policies`: names separated by commas, each with
/// optional keys in parentheses (`JSQ,L-JSQ-Push(p_hat=0.01,d=2)`).
pub(crate) fn parse_policies(args: &[String]) -> Result<Vec<PolicyArg>, String> {
    let joined = args.join(",");
    let mut items = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in joined.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    items.push(cur);
    let mut out = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        let (spec, keys) = match item.split_once('(') {
            None => (item, ""),
            Some((spec, rest)) => {
                let Some(keys) = rest.strip_suffix(')') else {
                    return Err(format!(
                        "--policies: \"{item}\" opens a parenthesis it does not close; \
                         write NAME(key=value,…), e.g. 'L-JSQ-Push(p_hat=0.01,d=2)'"
                    ));
                };
                (spec, keys)
            }
        };
        let mut kv = Vec::new();
        for pair in keys.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(format!(
                    "--policies: \"{pair}\" in \"{item}\" is not key=value; e.g. \
                     'L-JSQ-Push(p_hat=0.01,d=2)' (the keys are in experiments/README.md)"
                ));
            };
            kv.push((k.trim().to_string(), v.trim().to_string()));
        }
        out.push(PolicyArg {
            spec: spec.trim().to_string(),
            keys: kv,
        });
    }
    if out.is_empty() {
        return Err("--policies: name at least one policy (e.g. JSQ,Random)".into());
    }
    Ok(out)
}

/// A key's value as TOML: numbers, booleans, arrays, tables and quoted
/// strings as typed, any other word quoted; `budget` as a calibration
/// target (a number of messages per arrival, or the policy to match).
fn toml_value(key: &str, v: &str) -> String {
    let raw =
        v.parse::<f64>().is_ok() || v == "true" || v == "false" || v.starts_with(['[', '{', '"']);
    match key {
        "budget" if v.parse::<f64>().is_ok() => format!("{{ messages_per_arrival = {v} }}"),
        "budget" if !v.starts_with('{') => {
            format!("{{ same_as = \"{}\" }}", v.trim_matches('"'))
        }
        _ if raw => v.to_string(),
        _ => format!("\"{v}\""),
    }
}

/// The keys a policy cannot go without, with a value to edit, where the
/// command line gave none.
fn required_keys(model: &str, p: &PolicyArg) -> Vec<(&'static str, &'static str)> {
    let has = |k: &str| p.keys.iter().any(|(key, _)| key == k);
    use crate::model::many::ManyKind;
    use crate::model::slotted::PolicyKind;
    use crate::model::spn::SpnKind;
    let (many, spn) = (
        p.spec.parse::<ManyKind>().ok(),
        p.spec.parse::<SpnKind>().ok(),
    );
    let mut out = Vec::new();
    match model {
        "slotted" => {
            let kind = PolicyKind::parse(&p.spec);
            let led = kind.is_some_and(|k| k.is_led());
            if led && !has("p_hat") && !has("budget") {
                out.push((
                    "p_hat",
                    "0.1            # update probability p̂ (edit; or a `budget` of messages per arrival)",
                ));
            }
            if kind == Some(PolicyKind::JiqSpread) && !has("granularity") {
                out.push((
                    "granularity",
                    "\"job\"    # JIQ-Spread spreads a dispatcher's jobs one by one",
                ));
            }
        }
        "many" if many == Some(ManyKind::Graph) && !has("graph") => out.push((
            "graph",
            "\"ring\"         # clique, ring, torus, or { kind = \"random_regular\", degree = 4 } (edit)",
        )),
        "spn" if spn == Some(SpnKind::Priority) && !has("order") => out.push((
            "order",
            "[[0], [1]]     # per station, its activities from the highest priority down",
        )),
        "spn" if spn == Some(SpnKind::OwnBufferFirst) && !has("own") => {
            out.push(("own", "[0, 1]         # per station, its own buffer"))
        }
        _ => {}
    }
    out
}

/// The manifest text of a new experiment.
pub fn text(
    name: &str,
    model: &str,
    policies: &[PolicyArg],
    loads: &[f64],
) -> Result<String, String> {
    if policies.is_empty() {
        return Err("--policies: name at least one policy (e.g. JSQ,Random)".into());
    }
    if loads.is_empty() {
        return Err("--load: give at least one load (e.g. 0.5,0.9)".into());
    }
    let list = |xs: &[f64]| {
        xs.iter()
            .map(|x| lb_model::canonical::number_to_string(*x))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: a new experiment, written by `lb new`. Every key is explained in\n\
         # experiments/README.md; `lb plan` on this file shows its points and what\n\
         # they cost, `lb run` computes them, `lb audit` judges the claim below.\n"
    );
    let _ = writeln!(s, "[experiment]");
    let _ = writeln!(
        s,
        "name = \"{name}\"                  # the file's stem; names its results and figures"
    );
    let _ = writeln!(
        s,
        "title = \"{}: {} against the load\"   # the report's heading",
        name,
        policies
            .iter()
            .map(|p| p.spec.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "source = \"(the paper, section or figure this reproduces: edit)\""
    );
    let _ = writeln!(s, "model = \"{model}\"\n");
    let (axis, metric, metric_words) = match model {
        "slotted" => {
            s.push_str(
                "[system]\n\
                 dispatchers = 1                       # M dispatchers, each with its own arrivals\n\
                 servers = { count = 10, rate = 0.5 }  # N Bernoulli servers of rate μ each\n\
                 service = \"bernoulli\"                 # a server finishes a job with probability μ a slot\n\
                 arrivals = \"poisson\"                  # jobs arriving at a dispatcher in a slot\n\n",
            );
            ("load", "mean_response", "mean response time (slots)")
        }
        "many" => {
            s.push_str(
                "[system]\n\
                 servers = 100        # N exponential servers of rate 1; Poisson arrivals at rate λN\n\n",
            );
            ("lambda", "mean_response", "mean response time")
        }
        "spn" => {
            s.push_str(
                "# Two stations in tandem, one buffer each (a Jackson network: `jackson` is its\n\
                 # product-form E[Σ Z]); arrivals to buffer 0 scaled by the sweep's load.\n\
                 [network]\n\
                 stations = 2\n\
                 arrivals = [0.8, 0.0]        # λ_j into each buffer\n\n\
                 [[network.activity]]         # station 0 serves buffer 0, then sends the job to buffer 1\n\
                 station = 0\nbuffer = 0\nmean = 0.5\nrouting = [{ buffer = 1, probability = 1.0 }]\n\n\
                 [[network.activity]]         # station 1 serves buffer 1; the job leaves\n\
                 station = 1\nbuffer = 1\nmean = 0.8\n\n",
            );
            ("load", "mean_total", "jobs in the network")
        }
        other => {
            return Err(format!(
                "--model: unknown \"{other}\"; allowed: slotted, many, spn"
            ));
        }
    };
    let _ = writeln!(
        s,
        "[sweep]\n{axis} = [{}]   # one point per value and policy\n",
        list(loads)
    );
    for p in policies {
        let _ = writeln!(s, "[[policy]]");
        let label = p.label(policies);
        if label != p.spec {
            let _ = writeln!(s, "label = \"{label}\"");
        }
        let _ = writeln!(s, "spec = \"{}\"", p.spec);
        for (k, v) in &p.keys {
            let _ = writeln!(s, "{k} = {}", toml_value(k, v));
        }
        for (k, v) in required_keys(model, p) {
            let _ = writeln!(s, "{k} = {v}");
        }
        s.push('\n');
    }
    s.push_str("[run]\n");
    match model {
        "slotted" => s.push_str(
            "slots = 100_000      # slots per replication, warm-up included\n\
             warmup = 10_000      # slots discarded at the start\n",
        ),
        _ => s.push_str(
            "horizon = 2000.0     # time units per replication, the warm-up included\n\
             warmup = 200.0       # time discarded at the start\n",
        ),
    }
    s.push_str(
        "replications = 5     # independent replications of every point (95% intervals)\n\
         seed = 1             # the master seed: same seed, same numbers\n\n",
    );
    let _ = writeln!(
        s,
        "[[figure]]\nname = \"{metric}\"\ntitle = \"{name}: {metric_words} against the load\"\n\
         x = \"{axis}\"\ny = \"{metric}\"\n\
         caption = \"(Say what is drawn: the system, the run length, the intervals. Edit.)\"\n"
    );
    let (better, worse) = match policies {
        [a, b, ..] => (a.label(policies), b.label(policies)),
        [a] => (a.label(policies), a.label(policies)),
        [] => unreachable!("checked above"),
    };
    if better != worse {
        let _ = writeln!(
            s,
            "# A first claim to edit: who makes it (origin: paper, stand-in, check or ours),\n\
             # what it says, and how lb decides it (experiments/README.md, \"Claims\").\n\
             [[claim]]\nid = \"{}-beats-{}\"\n\
             statement = \"{better} has a lower {metric_words} than {worse} at every load\"\n\
             source = \"(where the claim is made: edit)\"\norigin = \"ours\"\n\
             kind = \"ordering\"\nmetric = \"{metric}\"\nbetter = \"{better}\"\nworse = \"{worse}\"\n\
             # As a stand-in for a published statement: origin = \"stand-in\",\n\
             # paper = \"<its shortname in experiments/references.bib>\", source = \"@<key>, <section>\",\n\
             # stands_for = \"@<key>, <section>: \\\"<the sentence, quoted>\\\"\", and a foil: the same\n\
             # check where the property should fail (docs/AUDITING.md, \"Foils\"), e.g.\n\
             # [claim.foil]\n\
             # says = \"<why it should fail there>\"\n\
             # kind = \"ordering\"\n# metric = \"{metric}\"\n\
             # better = \"<a policy of this manifest without what the claim credits>\"\n\
             # worse = \"{worse}\"\n\
             # A limit claim (kind = \"limit\") whose metric approaches its limit slowly reads\n\
             # undecided on its tolerance alone: give min_rate = <the slowest rate counted>, and\n\
             # the rate at which the gap closes decides it; rate_from = \"@<key>, <where>: <how>\"\n\
             # where the paper's statement or proof gives that rate, else \"ours: <why>\".",
            slug(&better),
            slug(&worse)
        );
    }
    Ok(s)
}

/// A policy label as a claim id's part: lower case, letters and digits,
/// hyphens between.
fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// `lb new`: writes `dir/NAME.toml` once it validates.
///
/// With `paper`, a key of `dir/references.bib`, its claim is a stand-in for
/// that work: it cites the work by key, names its paper, quotes the sentence
/// it stands for (to edit), and says it has no foil yet.
pub fn new(
    name: &str,
    model: &str,
    policies: &[String],
    loads: &[f64],
    dir: &Path,
    paper: Option<&str>,
) -> Res {
    let policies = parse_policies(policies)?;
    let path: PathBuf = dir.join(format!("{name}.toml"));
    if path.exists() {
        return Err(format!(
            "{} exists; choose another name (lb new never overwrites a manifest)",
            path.display()
        )
        .into());
    }
    let mut body = text(name, model, &policies, loads)?;
    if let Some(key) = paper {
        let refs = crate::references::References::beside(&path)?.ok_or_else(|| {
            format!(
                "--paper {key}: no {} in {}: add the work there first",
                crate::references::FILE,
                dir.display()
            )
        })?;
        let work = refs.cited(key).map_err(|why| format!("--paper: {why}"))?;
        let ours = "source = \"(where the claim is made: edit)\"\norigin = \"ours\"\n";
        if !body.contains(ours) {
            return Err(
                "--paper: the manifest has no claim to make a stand-in (give two \
                        policies)"
                    .into(),
            );
        }
        body = body.replacen(
            ours,
            &format!(
                "source = \"@{key}, (section or figure: edit)\"\norigin = \"stand-in\"\n\
                 paper = \"{}\"\n\
                 stands_for = \"@{key}, (section or figure: edit): \\\"(the sentence, quoted: \
                 edit)\\\"\"\n\
                 no_foil = \"(none yet: replace with a [claim.foil], the same check where the \
                 property should fail; until then the claim is listed as not discriminating)\"\n",
                work.shortname
            ),
            1,
        );
    }
    // A relative directory under the repository root: name the model's
    // schema, for editors (`lb schema`).
    if dir.is_relative()
        && dir
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        let depth = dir.components().count();
        body = format!("{}\n{body}", crate::schema::directive(model, depth));
    }
    // Validated as `lb plan` would read it: nothing is written otherwise.
    crate::load_str(&path, &body, Profile::Full).map_err(|e| {
        let at = path.display().to_string();
        format!(
            "{}\n(nothing written to {at}. A policy's keys go in --policies \
             'NAME(key=value,…)', e.g. 'L-JSQ-Push(p_hat=0.01,d=2)'; every key is in \
             experiments/README.md)",
            e.to_string().replacen(
                &at,
                &format!("the manifest lb new would write ({name}.toml)"),
                1
            )
        )
    })?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(&path, body)?;
    Ok(format!(
        "wrote {}: `lb plan {}` shows its points and cost",
        path.display(),
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name a model's `spec` accepts, as a user would type it.
    fn names(model: &str) -> Vec<String> {
        let list: Vec<&str> = match model {
            "slotted" => crate::model::slotted::POLICY_NAMES.to_vec(),
            "many" => crate::model::many::MANY_POLICY_NAMES.to_vec(),
            "spn" => crate::model::spn::POLICY_NAMES.to_vec(),
            _ => unreachable!(),
        };
        // "Power-of-2 (any k: Power-of-k)" is one name with a note.
        list.iter()
            .map(|n| n.split(" (").next().unwrap().to_string())
            .collect()
    }

    /// The manifest `lb new` writes for `policies` plans, as `lb plan` reads it.
    fn plans(model: &str, policies: &str) -> Result<(), String> {
        let ps = parse_policies(&[policies.to_string()])?;
        let body = text("t", model, &ps, &[0.5, 0.9])?;
        crate::load_str(Path::new("experiments/t.toml"), &body, Profile::Full)
            .map(|_| ())
            .map_err(|e| format!("{e}\n{body}"))
    }

    #[test]
    fn every_policy_of_every_model_gets_a_manifest_that_plans() {
        for model in ["slotted", "many", "spn"] {
            let all = names(model);
            assert!(all.len() >= 4, "{model}: {all:?}");
            for name in &all {
                plans(model, name).unwrap_or_else(|e| panic!("{model} {name}: {e}"));
            }
            // All of them in one manifest, as a comparison would.
            plans(model, &all.join(",")).unwrap_or_else(|e| panic!("{model}: {e}"));
        }
    }

    #[test]
    fn a_policy_takes_its_keys_in_parentheses() {
        let ps = parse_policies(&[
            "JSQ,L-JSQ-Push(p_hat=0.01,d=2),L-JSQ-Push(p_hat=1, d=2, tie_break=lowest)".into(),
            "L-JBA-Pull(budget=Power-of-2),Power-of-2".into(),
        ])
        .unwrap();
        assert_eq!(ps.len(), 5);
        assert_eq!(
            ps[1].keys,
            vec![("p_hat".into(), "0.01".into()), ("d".into(), "2".into())]
        );
        let body = text("t", "slotted", &ps, &[0.5]).unwrap();
        assert!(
            body.contains("label = \"L-JSQ-Push (p_hat = 0.01, d = 2)\""),
            "{body}"
        );
        assert!(body.contains("tie_break = \"lowest\""), "{body}");
        assert!(
            body.contains("budget = { same_as = \"Power-of-2\" }"),
            "{body}"
        );
        crate::load_str(Path::new("experiments/t.toml"), &body, Profile::Full)
            .unwrap_or_else(|e| panic!("{e}\n{body}"));
        // A key that does not exist is refused where lb plan would refuse it.
        let e = plans("slotted", "L-JSQ-Push(p_hat=0.1,q=3)").unwrap_err();
        assert!(e.contains("q"), "{e}");
        assert!(parse_policies(&["L-JSQ-Push(p_hat=0.1".into()]).is_err());
    }

    #[test]
    fn a_name_of_another_model_is_answered_with_its_name_there() {
        let e = plans("many", "Power-of-2").unwrap_err();
        assert!(e.contains("`spec = \"Pod\"` with `d = 2`"), "{e}");
        let e = plans("many", "L-JSQ-Pull").unwrap_err();
        assert!(e.contains("model = \"slotted\""), "{e}");
        let e = plans("slotted", "I1F").unwrap_err();
        assert!(e.contains("model = \"many\""), "{e}");
        let e = plans("spn", "JSQ").unwrap_err();
        assert!(e.contains("processing network"), "{e}");
    }
}
