//! JSON Schemas of the manifests (`lb schema`, committed under `schema/`),
//! one per model, generated from the very types that parse a manifest, with
//! their doc comments as descriptions: an editor that reads the `#:schema`
//! line of a manifest (Taplo, "Even Better TOML") completes and checks its
//! keys, and CI checks every shipped manifest against them. A schema checks
//! the shape — keys, types, enumerations; what needs the whole manifest (a
//! policy a claim names, a load below 1, finite numbers) is `lb plan`'s.

use schemars::generate::SchemaSettings;
use std::collections::BTreeMap;

/// The manifest reference a writer reads: each key's description in a
/// schema is its comment in the annotated manifests of this file (the
/// developers' doc comment where it has none).
const README: &str = include_str!("../../../experiments/README.md");

/// (file name under `schema/`, the model, its schema as pretty JSON).
pub fn schemas() -> Vec<(&'static str, &'static str, String)> {
    let settings = SchemaSettings::draft07();
    let docs = readme_docs(README);
    let one = |s: schemars::Schema, model: &str| {
        let mut v = s.to_value();
        clean(&mut v);
        describe(&mut v, &docs, model);
        serde_json::to_string_pretty(&v).expect("JSON") + "\n"
    };
    vec![
        (
            "slotted.json",
            "slotted",
            one(
                settings
                    .clone()
                    .into_generator()
                    .into_root_schema_for::<crate::model::slotted::Manifest>(),
                "slotted",
            ),
        ),
        (
            "many.json",
            "many",
            one(
                settings
                    .clone()
                    .into_generator()
                    .into_root_schema_for::<crate::model::many::Manifest>(),
                "many",
            ),
        ),
        (
            "spn.json",
            "spn",
            one(
                settings
                    .into_generator()
                    .into_root_schema_for::<crate::model::spn::Manifest>(),
                "spn",
            ),
        ),
    ]
}

/// (model, table, key) → its description in experiments/README.md's
/// annotated manifests (key "" for the table itself): a key's trailing
/// comment and the indented comment lines that continue it, joined; a key
/// described twice (a commented alternative form, another policy's `spec`)
/// has both, in order.
pub type Docs = BTreeMap<(String, String, String), String>;

/// Reads the annotated ```toml blocks of experiments/README.md: the block
/// whose `[experiment]` names `model = "many"` or `"spn"` documents that
/// model; the others, the slotted model.
pub(crate) fn readme_docs(readme: &str) -> Docs {
    let mut docs: Docs = BTreeMap::new();
    let mut in_block = false;
    let mut block: Vec<&str> = Vec::new();
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            if in_block {
                blocks.push(std::mem::take(&mut block));
            }
            in_block = line.trim() == "```toml" && !in_block;
            continue;
        }
        if in_block {
            block.push(line);
        }
    }
    for b in blocks {
        let model = b
            .iter()
            .find_map(|l| {
                let l = l.trim_start();
                l.strip_prefix("model = \"")
                    .and_then(|r| r.split('"').next())
            })
            .unwrap_or("slotted")
            .to_string();
        let (mut table, mut current): (String, Option<(String, String, String)>) =
            (String::new(), None);
        // A commented-out key with no comment of its own is described by
        // the comment lines under it ("#   the point runs …"), less indented.
        let mut near = false;
        for line in b {
            let t = line.trim_start();
            let comment = |rest: &str| rest.find("  # ").map(|i| rest[i + 4..].trim().to_string());
            // A table header, perhaps commented out: [run], [[policy]], # [[policy]].
            let h = t.trim_start_matches('#').trim_start();
            if h.starts_with('[') && !h.starts_with("[0") {
                let name = h.trim_start_matches('[');
                let end = name.find(']').unwrap_or(0);
                if end > 0
                    && name[..end]
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_')
                {
                    table = name[..end].to_string();
                    near = false;
                    // A commented-out header opens an example of the table;
                    // only a real one describes it.
                    current = comment(h).filter(|_| !t.starts_with('#')).map(|c| {
                        let k = (model.clone(), table.clone(), String::new());
                        push(&mut docs, &k, &c);
                        k
                    });
                    continue;
                }
            }
            // A continuation: an indented comment line (in a commented-out
            // block too: "#        # more").
            let body = line.strip_prefix('#').unwrap_or(line);
            let lead = body.len() - body.trim_start().len();
            let under = near
                .then(|| {
                    body.strip_prefix("  ")
                        .filter(|b| !b.trim_start().starts_with('#'))
                })
                .flatten();
            if let (Some(k), Some(rest)) = (
                &current,
                body.trim_start()
                    .strip_prefix('#')
                    .filter(|_| lead >= 8)
                    .or(under),
            ) {
                let text = rest.trim();
                if !text.is_empty() {
                    let d = docs.get_mut(k).expect("pushed");
                    if !d.is_empty() && !d.ends_with('\n') {
                        d.push(' ');
                    }
                    d.push_str(text);
                }
                continue;
            }
            // key = value  # comment (perhaps commented out: an alternative).
            let kl = t.strip_prefix('#').map_or(t, |r| r.trim_start());
            if let Some(eq) = kl.find(" = ") {
                let key = &kl[..eq];
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    let k = (model.clone(), table.clone(), key.to_string());
                    near = false;
                    current = match comment(&kl[eq..]) {
                        Some(c) => {
                            push(&mut docs, &k, &c);
                            Some(k)
                        }
                        None if t.starts_with('#') => {
                            // A new paragraph of the key's text.
                            near = true;
                            let d = docs.entry(k.clone()).or_default();
                            if !d.is_empty() {
                                d.push_str("\n\n");
                            }
                            Some(k)
                        }
                        None => None,
                    };
                    continue;
                }
            }
            current = None;
            near = false;
        }
    }
    docs.values_mut().for_each(|d| *d = d.trim().to_string());
    docs.retain(|_, d| !d.is_empty());
    docs
}

fn push(docs: &mut Docs, k: &(String, String, String), text: &str) {
    match docs.get_mut(k) {
        Some(d) if !text.is_empty() => {
            if !d.is_empty() {
                d.push_str("\n\n");
            }
            d.push_str(text);
        }
        Some(_) => {}
        None => {
            docs.insert(k.clone(), text.to_string());
        }
    }
}

/// Sets the description of each table and key of `model`'s schema `v` that
/// experiments/README.md documents. The many-server and network models take
/// the slotted model's text for the tables they share unchanged
/// (experiment, claim, figure, robustness).
fn describe(v: &mut serde_json::Value, docs: &Docs, model: &str) {
    let shared = ["experiment", "claim", "figure", "robustness"];
    let find = |table: &str, key: &str| {
        docs.get(&(model.into(), table.into(), key.into()))
            .or_else(|| {
                (model != "slotted" && shared.contains(&table))
                    .then(|| docs.get(&("slotted".into(), table.into(), key.into())))
                    .flatten()
            })
    };
    let Some(props) = v.get("properties").and_then(|p| p.as_object()).cloned() else {
        return;
    };
    for (table, prop) in props {
        if let Some(d) = find(&table, "") {
            v["properties"][&table]["description"] = d.clone().into();
        }
        let Some(def) = first_ref(&prop) else {
            continue;
        };
        let Some(keys) = v["definitions"][&def]["properties"].as_object().cloned() else {
            continue;
        };
        for key in keys.keys() {
            if let Some(d) = find(&table, key) {
                v["definitions"][&def]["properties"][key]["description"] = d.clone().into();
            }
        }
    }
}

/// The definition a property refers to (through arrays and optionals).
fn first_ref(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(|r| r.as_str()) {
                return r.strip_prefix("#/definitions/").map(str::to_string);
            }
            m.values().find_map(first_ref)
        }
        serde_json::Value::Array(a) => a.iter().find_map(first_ref),
        _ => None,
    }
}

/// The `#:schema` line a manifest of `model` names its schema with, from a
/// manifest `depth` directories below the repository root.
pub fn directive(model: &str, depth: usize) -> String {
    format!("#:schema {}schema/{model}.json", "../".repeat(depth))
}

/// Descriptions as a manifest's writer reads them: the doc comments without
/// their rustdoc links or references to lb's own design notes.
fn clean(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    serde_json::Value::String(d) if k == "description" => *d = words(d),
                    _ => clean(x),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(clean),
        _ => {}
    }
}

fn words(d: &str) -> String {
    let mut s = d.replace("[`", "`").replace("`]", "`");
    // "(docs/MODEL.md §4)" and the like: where the code's reader reads on,
    // not the manifest's writer.
    for open in [" (docs/MODEL.md"] {
        while let Some(i) = s.find(open) {
            let Some(j) = s[i..].find(')') else { break };
            s.replace_range(i..i + j + 1, "");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    /// A key's trailing comment and its continuation lines, by model and
    /// table; a commented table header documents the table.
    #[test]
    fn readme_comments_become_descriptions() {
        let docs = super::readme_docs(
            "x\n```toml\n[run]\nslots = 5   # slots per run,\n             # warm-up included\n\
             # precision = { min = 4 }\n#   the pilot chooses n,\n#   then the point runs\n\
             # seed = 1  # the master seed\nplain = 3\n             # not a description\n```\n\
             ```toml\n[experiment]\nmodel = \"many\"\n[run]     # the run\nhorizon = 2.0  # time\n```\n",
        );
        let get = |m: &str, t: &str, k: &str| docs.get(&(m.into(), t.into(), k.into())).cloned();
        assert_eq!(
            get("slotted", "run", "slots").as_deref(),
            Some("slots per run, warm-up included")
        );
        assert_eq!(
            get("slotted", "run", "seed").as_deref(),
            Some("the master seed")
        );
        assert_eq!(get("slotted", "run", "plain"), None);
        assert_eq!(
            get("slotted", "run", "precision").as_deref(),
            Some("the pilot chooses n, then the point runs")
        );
        assert_eq!(get("many", "run", "horizon").as_deref(), Some("time"));
        assert_eq!(get("many", "run", "").as_deref(), Some("the run"));
        // A commented-out header's comment describes its example, not the table.
        let docs = super::readme_docs(
            "```toml\n[[policy]]  # one table per policy\n# [[policy]]  # in a job manifest\n```\n",
        );
        assert_eq!(
            docs.get(&("slotted".into(), "policy".into(), String::new()))
                .map(String::as_str),
            Some("one table per policy")
        );
    }

    /// The committed reference documents the keys a writer meets first.
    #[test]
    fn the_schemas_carry_experiments_readme() {
        let all = super::schemas();
        let slotted: serde_json::Value = serde_json::from_str(&all[0].2).unwrap();
        let run = &slotted["definitions"]["RunSpec"]["properties"];
        assert!(
            run["warmup_rule"]["description"]
                .as_str()
                .unwrap()
                .contains("MSER-5 (White 1997)"),
            "{}",
            run["warmup_rule"]
        );
        let many: serde_json::Value = serde_json::from_str(&all[1].2).unwrap();
        let text = serde_json::to_string(&many).unwrap();
        assert!(text.contains("time per replication, in mean service times"));
    }

    #[test]
    fn descriptions_lose_rustdoc_links_and_design_references() {
        assert_eq!(
            super::words("One experiment (docs/MODEL.md §4). See [`Length`]."),
            "One experiment. See `Length`."
        );
        assert_eq!(
            super::words("as docs/MODEL.md §1 says"),
            "as docs/MODEL.md §1 says"
        );
    }
}
