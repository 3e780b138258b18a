//! Why a point is missing from the cache (`lb plan --why`): never computed,
//! its engine version moved, or a field of its configuration changed —
//! against the closest point the cache holds of the same model, field by
//! field. A rerun that recomputes everything after an innocent edit is the
//! question this answers.

use crate::cache::Cache;
use lb_model::key::Key;
use lb_model::point::Point;
use serde_json::Value;
use std::collections::BTreeMap;

/// The cached points, read once (their key and configuration as JSON
/// leaves), to hold missing points against.
pub struct Cached {
    points: Vec<(Key, Point, BTreeMap<String, String>)>,
}

impl Cached {
    /// Every valid `point.json` of the cache.
    pub fn read(cache: &Cache) -> Cached {
        let points = cache
            .keys()
            .into_iter()
            .filter_map(|(k, _)| cache.read_point(&k).valid().map(|rec| (k, rec.point)))
            .map(|(k, p)| {
                let leaves = leaves(&p);
                (k, p, leaves)
            })
            .collect();
        Cached { points }
    }

    /// Why `point` (missing from the cache) is missing, in one line.
    pub fn why(&self, point: &Point) -> String {
        let mine = leaves(point);
        let closest = self
            .points
            .iter()
            .filter(|(_, p, _)| p.model == point.model)
            .map(|(k, _, l)| (k, diff(l, &mine)))
            .min_by_key(|(_, d)| d.len());
        let Some((k, d)) = closest else {
            return format!(
                "never computed: the cache holds no point of the {} model",
                point.model.name()
            );
        };
        if d.is_empty() {
            return format!(
                "its configuration is cached as {} (a damaged record?)",
                k.short()
            );
        }
        if d.len() == 1 && d[0].0 == "model_version" {
            return format!(
                "the {} engine's version moved ({}): every point of the model has a new key; \
                 `lb verify` on the old records tells whether its numbers changed",
                point.model.name(),
                change(&d[0])
            );
        }
        const SHOWN: usize = 4;
        let mut fields: Vec<String> = d.iter().take(SHOWN).map(change_named).collect();
        if d.len() > SHOWN {
            fields.push(format!("and {} more field(s)", d.len() - SHOWN));
        }
        format!(
            "the closest cached point, {}, differs in {}: {}",
            k.short(),
            if d.len() == 1 {
                "one field"
            } else {
                "these fields"
            },
            fields.join("; ")
        )
    }
}

/// (field, cached value, this point's value); a missing side is "—".
type Change = (String, String, String);

fn change(c: &Change) -> String {
    format!("{} → {}", c.1, c.2)
}

fn change_named(c: &Change) -> String {
    format!("{}: {}", c.0, change(c))
}

/// The fields where `cached` and `mine` differ, in field order.
fn diff(cached: &BTreeMap<String, String>, mine: &BTreeMap<String, String>) -> Vec<Change> {
    let mut out = Vec::new();
    let dash = "—".to_string();
    for (f, v) in mine {
        match cached.get(f) {
            Some(c) if c == v => {}
            c => out.push((f.clone(), c.unwrap_or(&dash).clone(), v.clone())),
        }
    }
    for (f, c) in cached {
        if !mine.contains_key(f) {
            out.push((f.clone(), c.clone(), dash.clone()));
        }
    }
    out.sort();
    out
}

/// A point's JSON as leaves: `config.run.slots` → "2000".
fn leaves(p: &Point) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let v = serde_json::to_value(p).unwrap_or(Value::Null);
    walk("", &v, &mut out);
    out
}

fn walk(path: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                walk(&join(k), x, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(&format!("{path}[{i}]"), x, out);
            }
        }
        other => {
            out.insert(path.to_string(), other.to_string());
        }
    }
}
