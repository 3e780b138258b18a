//! JSON Schemas of the manifests (`lb schema`, committed under `schema/`),
//! one per model, generated from the very types that parse a manifest, with
//! their doc comments as descriptions: an editor that reads the `#:schema`
//! line of a manifest (Taplo, "Even Better TOML") completes and checks its
//! keys, and CI checks every shipped manifest against them. A schema checks
//! the shape — keys, types, enumerations; what needs the whole manifest (a
//! policy a claim names, a load below 1, finite numbers) is `lb plan`'s.

use schemars::generate::SchemaSettings;

/// (file name under `schema/`, the model, its schema as pretty JSON).
pub fn schemas() -> Vec<(&'static str, &'static str, String)> {
    let settings = SchemaSettings::draft07();
    let one = |s: schemars::Schema| {
        let mut v = s.to_value();
        clean(&mut v);
        serde_json::to_string_pretty(&v).expect("JSON") + "\n"
    };
    vec![
        (
            "slotted.json",
            "slotted",
            one(settings
                .clone()
                .into_generator()
                .into_root_schema_for::<crate::model::slotted::Manifest>()),
        ),
        (
            "many.json",
            "many",
            one(settings
                .clone()
                .into_generator()
                .into_root_schema_for::<crate::model::many::Manifest>()),
        ),
        (
            "spn.json",
            "spn",
            one(settings
                .into_generator()
                .into_root_schema_for::<crate::model::spn::Manifest>()),
        ),
    ]
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
    // "(SPEC §4)", "(issue 21)", and the like.
    for open in [" (SPEC", " (issue "] {
        while let Some(i) = s.find(open) {
            let Some(j) = s[i..].find(')') else { break };
            s.replace_range(i..i + j + 1, "");
        }
    }
    s.replace("SPEC §", "docs/MODEL.md §")
}

#[cfg(test)]
mod tests {
    #[test]
    fn descriptions_lose_rustdoc_links_and_design_references() {
        assert_eq!(
            super::words("One experiment (SPEC §4). See [`Length`] (issue 21)."),
            "One experiment. See `Length`."
        );
        assert_eq!(super::words("as SPEC §1 says"), "as docs/MODEL.md §1 says");
    }
}
