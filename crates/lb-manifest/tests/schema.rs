//! The manifests' JSON Schemas (`lb schema`) are committed as lb generates
//! them, and every shipped manifest names its model's schema on its first
//! line, so an editor reading `#:schema` checks it against the types lb
//! parses it with. (CI validates the manifests against the schemas with
//! Taplo, and holds the schema to never refuse what `lb plan` accepts:
//! scripts/schema-check.sh.)

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_committed_schemas_are_current() {
    for (file, _, text) in lb_manifest::schema::schemas() {
        let p = root().join("schema").join(file);
        let committed = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(
            committed == text,
            "{} differs from the manifest types: run `lb schema` and commit it",
            p.display()
        );
        // Every table is closed: an unknown key is an error, as in lb.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["additionalProperties"], false, "{file}");
        assert!(
            v["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{file}"
        );
    }
}

#[test]
fn every_shipped_manifest_names_its_models_schema() {
    let mut n = 0;
    for dir in ["experiments", "experiments/coverage"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "toml") || p.ends_with("certificate.toml") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let v: toml::Table = toml::from_str(&text).unwrap();
            let model = v["experiment"]["model"].as_str().unwrap();
            let want = lb_manifest::schema::directive(model, dir.split('/').count());
            assert_eq!(
                text.lines().next(),
                Some(want.as_str()),
                "{}: its first line names its schema",
                p.display()
            );
            n += 1;
        }
    }
    assert!(n >= 20, "{n} manifests");
}
