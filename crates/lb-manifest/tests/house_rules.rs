//! The house rules ([`lb_manifest::rules::RULES`]) hold for every shipped
//! manifest: the test suite applies the registry `lb check` applies.

use std::path::Path;

#[test]
fn the_shipped_manifests_keep_the_house_rules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut bad = Vec::new();
    let mut files = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        files += 1;
        for (rule, f) in lb_manifest::rules::check_file(&p).unwrap() {
            bad.push(format!(
                "{}: {}: [{rule}] {}",
                p.file_name().unwrap().to_string_lossy(),
                f.field,
                f.message
            ));
        }
    }
    assert!(files >= 10, "only {files} manifests in {}", dir.display());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
