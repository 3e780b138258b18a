//! A figure as a PDF a paper can include: the SVG lb writes, converted by
//! typst's svg2pdf. Vector paths; the text stays text, in DejaVu Sans
//! embedded as a subset (the font the SVG and the PNG use), so a LaTeX
//! document includes it as is and a reader can search and copy its words.
//! One SVG pixel is one PDF point (72 per inch).

use std::sync::{Arc, OnceLock};
use svg2pdf::usvg;

/// The fonts a figure's text is set in: DejaVu Sans alone, for every
/// family the SVG may name, so the PDF does not depend on the fonts of the
/// machine that writes it.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(dejavu::sans::regular().to_vec());
        for set in [
            usvg::fontdb::Database::set_sans_serif_family,
            usvg::fontdb::Database::set_serif_family,
            usvg::fontdb::Database::set_monospace_family,
        ] {
            set(&mut db, "DejaVu Sans");
        }
        Arc::new(db)
    })
    .clone()
}

/// `svg` with a zero-width space after a combining mark that ends a text
/// or a span of one (p̂ in "… with p̂`</tspan>`"): usvg 0.45 indexes past its
/// glyphs when a span's last cluster holds two glyphs, and panics. The
/// space draws nothing and the words read the same.
fn guard_final_marks(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut chars = svg.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        let combining = is_mark(c);
        if combining && chars.peek() == Some(&'<') {
            out.push('\u{200b}');
        }
    }
    out
}

/// Whether `c` is a combining diacritical mark (U+0300–U+036F).
fn is_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// The PDF of an SVG document: one page the size of the SVG, in points.
pub fn from_svg(svg: &str) -> Result<Vec<u8>, String> {
    let svg = guard_final_marks(svg);
    let svg = svg.as_str();
    let options = usvg::Options {
        fontdb: fonts(),
        font_family: "DejaVu Sans".into(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| format!("the SVG: {e}"))?;
    svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions::default(),
    )
    .map(sorted_resources)
    .map(letters_read_as_letters)
    .map_err(|e| format!("the PDF: {e}"))
}

/// `pdf` with its text-to-glyph map (`/ToUnicode`) reading every letter as
/// itself. In a letter with a combining mark (p̂) usvg gives the cluster's
/// text to the mark's glyph and none to the letter's, and svg2pdf keeps a
/// glyph's last text: the letter p then had no text anywhere in the figure,
/// and a search for "probability" found nothing. The mark's glyph is mapped
/// to its marks and the letter's (the glyph drawn just before it, the same
/// one at every occurrence) to the letter, so p̂ reads as p̂ and p as p.
/// The stream is rewritten, and the cross-reference table with it; a PDF
/// without such a cluster is returned as it was.
fn letters_read_as_letters(pdf: Vec<u8>) -> Vec<u8> {
    rewrite_to_unicode(&pdf).unwrap_or(pdf)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// The glyph codes the page shows, in order: each `(…) Tj` of its
/// content streams, two bytes a glyph (svg2pdf's Identity-H encoding).
pub fn shown_codes(pdf: &[u8]) -> Vec<u16> {
    let mut codes = Vec::new();
    let mut from = 0;
    while let Some(open) = find(pdf, b"stream\n", from) {
        let open = open + b"stream\n".len();
        let Some(close) = find(pdf, b"\nendstream", open) else {
            break;
        };
        from = close;
        let Ok(body) = miniz_oxide::inflate::decompress_to_vec_zlib(&pdf[open..close]) else {
            continue;
        };
        let mut i = 0;
        while let Some(start) = find(&body, b"(", i) {
            // A literal string: backslash escapes, octal or one character.
            let (mut bytes, mut j) = (Vec::new(), start + 1);
            while j < body.len() && body[j] != b')' {
                if body[j] == b'\\' && j + 1 < body.len() {
                    let oct = body[j + 1..]
                        .iter()
                        .take(3)
                        .take_while(|b| b.is_ascii_digit());
                    let n = oct.clone().count();
                    if n > 0 {
                        bytes.push(oct.fold(0u32, |v, &d| v * 8 + u32::from(d - b'0')) as u8);
                        j += 1 + n;
                    } else {
                        bytes.push(match body[j + 1] {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'b' => 8,
                            b'f' => 12,
                            c => c,
                        });
                        j += 2;
                    }
                } else {
                    bytes.push(body[j]);
                    j += 1;
                }
            }
            if body[j..].starts_with(b") Tj") {
                codes.extend(
                    bytes
                        .chunks(2)
                        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])),
                );
            }
            i = j + 1;
        }
    }
    codes
}

/// The `/ToUnicode` CMap's stream: its object's start (`N 0 obj`), the
/// stream's bytes (`open..close`), whether they are compressed, and its
/// text.
struct CMapStream {
    obj: usize,
    open: usize,
    close: usize,
    flate: bool,
    text: String,
}

fn to_unicode(pdf: &[u8]) -> Option<CMapStream> {
    let text = |a: usize, b: usize| std::str::from_utf8(&pdf[a..b]).ok();
    // The CMap's object: `/ToUnicode N 0 R`.
    let at = find(pdf, b"/ToUnicode ", 0)? + b"/ToUnicode ".len();
    let n: usize = text(at, find(pdf, b" 0 R", at)?)?.trim().parse().ok()?;
    let obj = find(pdf, format!("\n{n} 0 obj\n").as_bytes(), 0)? + 1;
    let open = find(pdf, b"stream\n", obj)? + b"stream\n".len();
    let close = find(pdf, b"\nendstream", open)?;
    // svg2pdf writes the CMap plain; a compressed one is read as well.
    let flate = text(obj, open)?.contains("/FlateDecode");
    let raw = if flate {
        miniz_oxide::inflate::decompress_to_vec_zlib(&pdf[open..close]).ok()?
    } else {
        pdf[open..close].to_vec()
    };
    Some(CMapStream {
        obj,
        open,
        close,
        flate,
        text: String::from_utf8(raw).ok()?,
    })
}

/// A CMap line `<code> <text>`: the glyph code and its text (UTF-16 code
/// units of the Basic Multilingual Plane, as svg2pdf writes them).
fn entry(line: &str) -> Option<(u16, Vec<char>)> {
    let (src, dst) = line.split_once("> <")?;
    let code = u16::from_str_radix(src.trim().trim_start_matches('<'), 16).ok()?;
    let text = dst
        .strip_suffix('>')?
        .as_bytes()
        .chunks(4)
        .map(|c| char::from_u32(u32::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok()?))
        .collect::<Option<_>>()?;
    Some((code, text))
}

fn rewrite_to_unicode(pdf: &[u8]) -> Option<Vec<u8>> {
    let text = |a: usize, b: usize| std::str::from_utf8(&pdf[a..b]).ok();
    let CMapStream {
        obj,
        open,
        close,
        flate,
        text: cmap,
    } = to_unicode(pdf)?;
    // The marks' glyphs are those whose text is a letter and its marks.
    let mapped: std::collections::BTreeSet<u16> =
        cmap.lines().filter_map(entry).map(|(c, _)| c).collect();
    let shown = shown_codes(pdf);
    let mut letters: Vec<(u16, char)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for line in cmap.lines() {
        let Some((code, text)) = entry(line) else {
            lines.push(line.to_string());
            continue;
        };
        let marked =
            text.len() > 1 && text[0].is_alphanumeric() && text[1..].iter().all(|&c| is_mark(c));
        // The glyph drawn just before each of this one's, if always the
        // same and without text of its own: the letter.
        let before: std::collections::BTreeSet<u16> = shown
            .windows(2)
            .filter(|w| w[1] == code)
            .map(|w| w[0])
            .collect();
        let letter = match before.iter().collect::<Vec<_>>()[..] {
            [&b] if marked && !mapped.contains(&b) => Some(b),
            _ => None,
        };
        match letter {
            Some(b) => {
                letters.push((b, text[0]));
                let marks: String = text[1..]
                    .iter()
                    .map(|&c| format!("{:04X}", u32::from(c)))
                    .collect();
                lines.push(format!("<{code:04X}> <{marks}>"));
            }
            None => lines.push(line.to_string()),
        }
    }
    if letters.is_empty() {
        return None;
    }
    // The letters' entries, counted in the block's header.
    // (In the first block only: a block holds at most 100 entries, and
    // svg2pdf writes one while the glyphs fit.)
    let mut fixed: Vec<String> = Vec::new();
    let mut added = false;
    for line in lines {
        if let Some(n) = line.strip_suffix(" beginbfchar").filter(|_| !added) {
            let n: usize = n.trim().parse().ok()?;
            if n + letters.len() > 100 {
                return None;
            }
            fixed.push(format!("{} beginbfchar", n + letters.len()));
        } else if line == "endbfchar" && !added {
            for (b, c) in &letters {
                fixed.push(format!("<{b:04X}> <{:04X}>", u32::from(*c)));
            }
            fixed.push(line);
            added = true;
        } else {
            fixed.push(line);
        }
    }
    let mut body = fixed.join("\n");
    if cmap.ends_with('\n') {
        body.push('\n');
    }
    let packed = if flate {
        miniz_oxide::deflate::compress_to_vec_zlib(body.as_bytes(), 6)
    } else {
        body.into_bytes()
    };
    // The object's dictionary with its new /Length.
    let dict = text(obj, open)?;
    let len_at = dict.find("/Length ")? + "/Length ".len();
    let len_end = len_at + dict[len_at..].find(|c: char| !c.is_ascii_digit())?;
    let dict = format!("{}{}{}", &dict[..len_at], packed.len(), &dict[len_end..]);
    let mut out = Vec::with_capacity(pdf.len());
    out.extend_from_slice(&pdf[..obj]);
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(&packed);
    // The table after the objects: each object's offset, then startxref.
    let xref = find(pdf, b"\nxref\n", close)? + 1;
    out.extend_from_slice(&pdf[close..xref]);
    let new_xref = out.len();
    let head_end = find(pdf, b"\n", xref + b"xref\n".len())? + 1;
    out.extend_from_slice(&pdf[xref..head_end]);
    let count: usize = text(xref + b"xref\n".len(), head_end - 1)?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let mut entry = head_end;
    for i in 0..count {
        let line = &pdf[entry..entry + 20];
        if i == 0 || line[17] != b'n' {
            out.extend_from_slice(line);
        } else {
            let at = find(&out, format!("\n{i} 0 obj\n").as_bytes(), 0)? + 1;
            out.extend_from_slice(format!("{at:010} 00000 n\r\n").as_bytes());
        }
        entry += 20;
    }
    let start = find(pdf, b"startxref\n", entry)?;
    out.extend_from_slice(&pdf[entry..start]);
    out.extend_from_slice(format!("startxref\n{new_xref}\n%%EOF").as_bytes());
    Some(out)
}

/// `pdf` with the entries of each resource dictionary (`/ExtGState <<`,
/// `/Font <<`, …, one entry a line as svg2pdf writes them) in sorted
/// order. svg2pdf lists them in a hash map's order, which changes from
/// run to run, so the same figure gave different bytes and every
/// `lb reproduce` rewrote every PDF. Sorting lines within a block keeps
/// its length, so the cross-reference offsets stay true; streams are
/// copied as they are.
fn sorted_resources(pdf: Vec<u8>) -> Vec<u8> {
    const KEYS: [&[u8]; 7] = [
        b"/ExtGState <<",
        b"/Font <<",
        b"/XObject <<",
        b"/Pattern <<",
        b"/Shading <<",
        b"/ColorSpace <<",
        b"/Properties <<",
    ];
    let lines: Vec<&[u8]> = pdf.split(|&b| b == b'\n').collect();
    let mut out: Vec<&[u8]> = Vec::with_capacity(lines.len());
    let (mut i, mut in_stream) = (0, false);
    while i < lines.len() {
        let line = lines[i];
        out.push(line);
        i += 1;
        if in_stream {
            in_stream = !line.ends_with(b"endstream");
            continue;
        }
        if line == b"stream" {
            in_stream = true;
            continue;
        }
        if !KEYS.iter().any(|k| line.trim_ascii_start() == *k) {
            continue;
        }
        let end = (i..lines.len()).find(|&j| lines[j].trim_ascii() == b">>");
        let Some(end) = end else { continue };
        let mut block: Vec<&[u8]> = lines[i..end].to_vec();
        if block.iter().all(|l| !l.ends_with(b"<<")) {
            block.sort_unstable();
            out.extend(block);
            i = end;
        }
    }
    out.join(&b'\n')
}

/// The glyph codes the page shows that its `/ToUnicode` map gives no text:
/// words with them cannot be searched or copied. Empty for every figure
/// lb writes (the figure tests hold it).
pub fn unmapped_glyphs(pdf: &[u8]) -> Vec<u16> {
    let mapped: std::collections::BTreeSet<u16> = to_unicode(pdf)
        .map(|c| {
            c.text
                .lines()
                .filter_map(entry)
                .map(|(code, _)| code)
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<u16> = shown_codes(pdf)
        .into_iter()
        .filter(|c| !mapped.contains(c))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
