//! The works lb cites, kept as BibTeX in `experiments/references.bib` (beside
//! the manifests) and read with the `biblatex` crate. A claim's `source` and
//! `stands_for` cite them by key with a locator, `@zhou-shroff-wierman, §4.2`
//! (several separated by `;`); the loader checks every key and writes each
//! citation out as the entry's `shortname`, with its year where it has one
//! ("Zhou, Shroff and Wierman, §4.2"; "Dai and Lin (2008)"). The report's
//! bibliography is the file's entries ([`References::markdown`]).

use crate::diag::{ManifestError, did_you_mean};
use std::path::{Path, PathBuf};

/// The file's name, beside the manifests.
pub const FILE: &str = "references.bib";

/// One work.
#[derive(Debug, Clone)]
pub struct Work {
    /// Its BibTeX key.
    pub key: String,
    /// How running text names it ("Zhou, Shroff and Wierman").
    pub shortname: String,
    /// Its title.
    pub title: String,
    /// "X. Zhou, N. Shroff and A. Wierman".
    pub authors: String,
    /// The first author's family name, for sorting.
    family: String,
    /// Journal or proceedings, year and note, as the file gives them.
    venue: Vec<String>,
    year: Option<String>,
    note: Option<String>,
}

impl Work {
    /// How a citation of it reads in running text: its shortname, with the
    /// year where the entry gives one ("Dai and Lin (2008)").
    pub fn citation(&self) -> String {
        match &self.year {
            Some(y) => {
                let name = self
                    .shortname
                    .strip_suffix(&format!(", {y}"))
                    .unwrap_or(&self.shortname);
                format!("{name} ({y})")
            }
            None => self.shortname.clone(),
        }
    }
}

/// The works of a references file.
#[derive(Debug, Clone)]
pub struct References {
    /// The file read.
    pub file: PathBuf,
    /// Its works, in the file's order.
    pub works: Vec<Work>,
}

impl References {
    /// The references file beside the manifest at `manifest`, if there is
    /// one.
    pub fn beside(manifest: &Path) -> Result<Option<References>, ManifestError> {
        let dir = manifest.parent().unwrap_or(Path::new("."));
        let file = dir.join(FILE);
        if !file.is_file() {
            return Ok(None);
        }
        References::load(&file).map(Some)
    }

    /// Reads and checks a references file: every entry has a title, an
    /// author and a `shortname`, and no two share a shortname.
    pub fn load(file: &Path) -> Result<References, ManifestError> {
        let fail = |field: String, message: String| ManifestError {
            file: file.to_path_buf(),
            line: 0,
            col: 0,
            field,
            message,
        };
        let text = std::fs::read_to_string(file)
            .map_err(|e| fail(String::new(), format!("cannot read the references: {e}")))?;
        let bib = biblatex::Bibliography::parse(&text).map_err(|e| {
            let line = text[..e.span.start.min(text.len())].lines().count().max(1);
            ManifestError {
                file: file.to_path_buf(),
                line,
                col: 1,
                field: String::new(),
                message: format!(
                    "not BibTeX: {:?} (a ref is @kind{{key, field = {{…}}, …}})",
                    e.kind
                ),
            }
        })?;
        let mut works: Vec<Work> = Vec::new();
        for entry in bib.iter() {
            let key = entry.key.clone();
            let field = |name: &str| -> Option<String> {
                use biblatex::ChunksExt;
                entry.get(name).map(|c| c.format_verbatim())
            };
            let need = |name: &str| {
                field(name).filter(|v| !v.trim().is_empty()).ok_or_else(|| {
                    fail(
                        format!("{key}.{name}"),
                        format!("the entry has no {name}: give one"),
                    )
                })
            };
            let title = need("title")?;
            let shortname = need("shortname")?;
            let people = entry.author().map_err(|_| {
                fail(
                    format!("{key}.author"),
                    "the entry has no author: give one (\"Anonymous\" where the work names none)"
                        .into(),
                )
            })?;
            let name = |p: &biblatex::Person| {
                [
                    p.given_name.as_str(),
                    p.prefix.as_str(),
                    p.name.as_str(),
                    p.suffix.as_str(),
                ]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
            };
            let names: Vec<String> = people.iter().map(name).collect();
            let authors = match names.len() {
                0 => String::new(),
                1 => names[0].clone(),
                n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
            };
            let family = people.first().map(|p| p.name.clone()).unwrap_or_default();
            let venue: Vec<String> = ["journal", "booktitle", "howpublished", "year"]
                .iter()
                .filter_map(|f| field(f))
                .collect();
            if let Some(w) = works.iter().find(|w| w.shortname == shortname) {
                return Err(fail(
                    format!("{key}.shortname"),
                    format!(
                        "\"{shortname}\" names {} too: a shortname names one work (add the \
                         year: \"{shortname}, <year>\")",
                        w.key
                    ),
                ));
            }
            works.push(Work {
                key,
                shortname,
                title,
                authors,
                family,
                venue,
                year: field("year"),
                note: field("note"),
            });
        }
        Ok(References {
            file: file.to_path_buf(),
            works,
        })
    }

    /// The work with this key.
    pub fn get(&self, key: &str) -> Option<&Work> {
        self.works.iter().find(|w| w.key == key)
    }

    /// The work `key` names, or the error a citation of an unknown key is,
    /// with the nearest key.
    pub fn cited(&self, key: &str) -> Result<&Work, String> {
        self.get(key).ok_or_else(|| {
            let keys: Vec<&str> = self.works.iter().map(|w| w.key.as_str()).collect();
            match did_you_mean(key, &keys) {
                Some(k) => format!(
                    "cites @{key}, which {} does not hold: did you mean @{k}?",
                    self.file.display()
                ),
                None => format!(
                    "cites @{key}, which {} does not hold: add an entry with that key, or \
                     cite one of its keys",
                    self.file.display()
                ),
            }
        })
    }

    /// The work a running-text name ("Dai and Lin, 2005") names.
    pub fn by_shortname(&self, name: &str) -> Option<&Work> {
        self.works.iter().find(|w| w.shortname == name)
    }

    /// The work a running-text name (a claim's `paper`, an inventory's
    /// `cited`) names, or the error with the nearest name.
    pub fn named(&self, name: &str) -> Result<&Work, String> {
        self.by_shortname(name).ok_or_else(|| {
            let names: Vec<&str> = self.works.iter().map(|w| w.shortname.as_str()).collect();
            match did_you_mean(name, &names) {
                Some(n) => format!(
                    "\"{name}\" is no work's shortname in {}: did you mean \"{n}\"?",
                    self.file.display()
                ),
                None => format!(
                    "\"{name}\" is no work's shortname in {}: add the work, or name one of \
                     its works",
                    self.file.display()
                ),
            }
        })
    }

    /// `text` with every citation `@key` written out ([`Work::citation`]);
    /// an unknown key is the error, with the nearest key.
    pub fn cite(&self, text: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('@') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(after.len());
            let key = &after[..end];
            out.push_str(&self.cited(key)?.citation());
            rest = &after[end..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The bibliography as Markdown: "## References" and an item per work,
    /// by first author.
    pub fn markdown(&self) -> String {
        let mut works: Vec<&Work> = self.works.iter().collect();
        works.sort_by(|a, b| {
            (a.family.to_lowercase(), &a.title).cmp(&(b.family.to_lowercase(), &b.title))
        });
        let mut s = String::from("## References\n\n");
        for w in works {
            // "*Title*. Journal, year (note)." or, with no venue, "*Title* (note)."
            let note = w
                .note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            if w.venue.is_empty() {
                s.push_str(&format!("- {}. *{}*{note}.\n", w.authors, w.title));
            } else {
                s.push_str(&format!(
                    "- {}. *{}*. {}{note}.\n",
                    w.authors,
                    w.title,
                    w.venue.join(", ")
                ));
            }
        }
        s
    }
}

/// A cited text of a manifest, checked: `@key` citations written out
/// ([`References::cite`]); where `needs_key`, the text must cite at least
/// one work (a paper's statement and a stand-in name the paper they
/// read). Without a references file, a text that cites is the error.
pub(crate) fn cited(
    refs: Option<&References>,
    text: &str,
    needs_key: bool,
) -> Result<String, String> {
    let cites = text.contains('@');
    match refs {
        Some(r) => {
            if needs_key && !cites {
                return Err(format!(
                    "names no work by key: cite the paper as \"@<key>, <section or figure>\" \
                     (its keys are in {}; \"@{}, §4.2\", say)",
                    r.file.display(),
                    r.works.first().map_or("key", |w| w.key.as_str())
                ));
            }
            r.cite(text)
        }
        None if cites => Err(format!(
            "cites a work by key, but there is no {FILE} beside the manifest: add one, or name \
             the work in words"
        )),
        None => Ok(text.to_string()),
    }
}
