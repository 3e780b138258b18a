//! `lb new NAME --model M --policies A,B --load X,Y`: a manifest to start
//! from, every key commented, a figure and a first claim to edit. The text
//! is validated as `lb plan` would before it is written, so `lb plan` on it
//! works at once; an existing file is never overwritten.

use lb_runner::Profile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

/// The manifest text of a new experiment.
pub fn text(name: &str, model: &str, policies: &[String], loads: &[f64]) -> Result<String, String> {
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
        policies.join(", ")
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
        let _ = writeln!(s, "[[policy]]\nspec = \"{p}\"\n");
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
        [a, b, ..] => (a.clone(), b.clone()),
        [a] => (a.clone(), a.clone()),
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
             kind = \"ordering\"\nmetric = \"{metric}\"\nbetter = \"{better}\"\nworse = \"{worse}\"",
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
pub fn new(name: &str, model: &str, policies: &[String], loads: &[f64], dir: &Path) -> Res {
    let path: PathBuf = dir.join(format!("{name}.toml"));
    if path.exists() {
        return Err(format!(
            "{} exists; choose another name (lb new never overwrites a manifest)",
            path.display()
        )
        .into());
    }
    let mut body = text(name, model, policies, loads)?;
    // A relative directory under the repository root: name the model's
    // schema, for editors (`lb schema`).
    if dir.is_relative()
        && dir
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        let depth = dir.components().count();
        body = format!("{}\n{body}", lb_runner::schema::directive(model, depth));
    }
    // Validated as `lb plan` would read it: nothing is written otherwise.
    lb_runner::load_str(&path, &body, Profile::Full).map_err(|e| {
        format!("{e}\n(nothing written: check the policy names with experiments/README.md)")
    })?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(&path, body)?;
    println!(
        "wrote {}: `lb plan {}` shows its points and cost",
        path.display(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
