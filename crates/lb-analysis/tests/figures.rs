//! Figures a reader can trust at a glance, checked on the layout
//! the renderer paints ([`plan`]), not on pixels: the legend covers no data
//! point, unstable marks never cover one another, log axes are labelled at
//! 1-2-5 values and integer axes at integers — for every figure of the
//! repository's manifests drawn from the committed cache, and for synthetic
//! figures built to crowd the corners.

use lb_analysis::collect;
use lb_analysis::figure::{
    Dot, Figure, FigureSpec, PathSeries, RefDrawn, RefShape, Series, mean_path, plan, svg,
};
use lb_analysis::stats::{Estimate, IntervalKind};
use lb_draw::geometry::{Layout, MarkKind};
use lb_manifest::outputs::FigureKind;
use lb_manifest::{Profile, load};
use lb_store::cache::Cache;
use lb_test_support::shipped_manifests;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What every figure must satisfy.
fn check(name: &str, p: &Layout) {
    let canvas = lb_draw::geometry::Rect {
        x0: 0.0,
        y0: 0.0,
        x1: p.width,
        y1: p.height,
    };
    for m in &p.marks {
        assert!(
            canvas.contains(m.bbox.x0, m.bbox.y0) && canvas.contains(m.bbox.x1, m.bbox.y1),
            "{name}: a mark outside the figure: {m:?}"
        );
        if m.kind != MarkKind::Unstable {
            assert!(
                p.plot.contains(m.cx, m.cy),
                "{name}: a data mark outside the plot area: {m:?}"
            );
        }
    }
    if let Some(l) = p.legend {
        assert!(
            canvas.contains(l.x0, l.y0) && canvas.contains(l.x1, l.y1),
            "{name}: the legend leaves the figure: {l:?}"
        );
        assert!(
            !l.intersects(&p.plot),
            "{name}: the legend is on the plot area"
        );
        if let Some(b) = p.unstable {
            assert!(
                !l.intersects(&b),
                "{name}: the legend is on the unstable band"
            );
        }
        for m in &p.marks {
            assert!(
                !m.bbox.intersects(&l),
                "{name}: the legend covers a data point: {m:?} under {l:?}"
            );
        }
        for e in &p.entries {
            assert!(
                e.rect.x0 >= l.x0 && e.rect.x1 <= l.x1 && e.rect.y1 <= l.y1,
                "{name}: a legend entry outside the legend"
            );
        }
    }
    // No data mark or interval is cut by the frame without a mark: every
    // marker lies inside the plot, and an interval reaching past the axis
    // is cut at its end and flagged (drawn with an arrow there).
    for m in &p.marks {
        if m.kind == MarkKind::Unstable {
            continue;
        }
        assert!(
            m.bbox.y0 >= p.plot.y0 - 0.5 && m.bbox.y1 <= p.plot.y1 + 0.5,
            "{name}: a marker cut by the plot's frame: {m:?} in {:?}",
            p.plot
        );
        if let Some((top, bottom)) = m.bar {
            let (hi, lo) = (p.y_px.1, p.y_px.0);
            assert!(
                top >= hi - 0.5 && bottom <= lo + 0.5 && top <= bottom,
                "{name}: an interval outside the axis: {m:?}"
            );
            if m.cut.0 {
                assert!(
                    (top - hi).abs() < 0.5,
                    "{name}: a cut not at the top: {m:?}"
                );
            }
            if m.cut.1 {
                assert!(
                    (bottom - lo).abs() < 0.5,
                    "{name}: a cut not at the bottom: {m:?}"
                );
            }
        }
    }
    // Unstable marks: one row per series, and none covers another.
    let unstable: Vec<_> = p
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Unstable)
        .collect();
    for (i, a) in unstable.iter().enumerate() {
        let band = p.unstable.expect("unstable marks need the band");
        assert!(band.contains(a.cx, a.cy), "{name}: {a:?} outside the band");
        for b in &unstable[i + 1..] {
            assert!(
                !a.bbox.intersects(&b.bbox),
                "{name}: unstable marks cover one another: {a:?} {b:?}"
            );
        }
    }
    // Log axes: labels at 1, 2, 5 × 10^k only.
    for (axis, what) in [(&p.x, "x"), (&p.y, "y")] {
        assert!(
            axis.ticks.len() >= 2,
            "{name}: {what} has {} labels",
            axis.ticks.len()
        );
        // A decimal every label ends in 0 is false ("100.0", "0.30").
        assert!(
            !axis
                .ticks
                .iter()
                .all(|(_, l)| l.contains('.') && l.ends_with('0')),
            "{name}: {what} labels carry a false decimal: {:?}",
            axis.ticks
        );
        for (v, label) in &axis.ticks {
            if axis.log {
                let m = v / 10f64.powi(v.log10().floor() as i32);
                assert!(
                    [1.0, 2.0, 5.0].iter().any(|k| (m - k).abs() < 1e-9),
                    "{name}: {what} label {label} is not 1-2-5"
                );
            }
        }
    }
}

/// Every figure the repository's manifests draw, from the committed cache.
#[test]
fn every_figure_of_the_repository_keeps_its_legend_off_the_data() {
    let cache = Cache::new(repo().join("results"));
    let mut figures = 0;
    let dir = shipped_manifests();
    for m in dir {
        let e = load(&m, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
        let (l, plan_) = (&e.loaded, &e.plan);
        let results = collect(&cache, plan_);
        for f in l.figures() {
            let spec = FigureSpec::from_toml(l.model(), f);
            let fig = Figure::new(&spec, &results);
            let p = plan(&fig);
            let name = format!("{}/{}", l.experiment().name, spec.name);
            check(&name, &p);
            // Integer axes (server counts) have integer labels.
            let xs: Vec<f64> = fig
                .series
                .iter()
                .flat_map(|s| &s.dots)
                .map(|d| d.x)
                .collect();
            if !xs.is_empty() && xs.iter().all(|x| x.fract() == 0.0) {
                for (v, label) in &p.x.ticks {
                    assert_eq!(v.fract(), 0.0, "{name}: x label {label} on an integer axis");
                }
            }
            if spec.kind == FigureKind::Lines && results.iter().all(|r| r.complete()) {
                assert!(!p.marks.is_empty(), "{name}: nothing drawn");
            }
            figures += 1;
        }
    }
    assert!(figures >= 9, "only {figures} figures");
}

fn est(mean: f64, hw: f64) -> Estimate {
    Estimate {
        mean,
        lo: Some(mean - hw),
        hi: Some(mean + hw),
        kind: IntervalKind::StudentT,
        n: 5,
        events: None,
    }
}

fn spec(kind: FigureKind) -> FigureSpec {
    FigureSpec {
        name: "t".into(),
        title: "A crowded figure".into(),
        kind,
        x: "load".into(),
        x_label: "Load".into(),
        y: None,
        y_label: "y".into(),
        series: vec![],
        filter: vec![],
        policies: vec![],
        log_x: false,
        log_y: true,
        y_range: None,
        difference: None,
        references: vec![],
        paths: 5,
        caption: "caption".into(),
        claim: None,
    }
}

/// Eight series with points in every corner of the plot, one unstable at
/// three close loads and one with an upper bound: the legend stays off
/// them all, and every series differs from the others.
#[test]
fn a_crowded_figure_keeps_its_legend_off_the_data() {
    let xs = [0.3, 0.5, 0.7, 0.9, 0.97, 0.98, 0.99];
    let series: Vec<Series> = (0..8)
        .map(|i| Series {
            name: format!("policy {i} with a long name"),
            policy: format!("p{i}"),
            variant: String::new(),
            dots: xs
                .iter()
                .map(|&x| Dot {
                    x,
                    est: if i == 7 && x == 0.5 {
                        Estimate {
                            mean: 0.0,
                            lo: Some(0.0),
                            hi: Some(1e-3),
                            kind: IntervalKind::UpperBound,
                            n: 5,
                            events: Some((0, 3000)),
                        }
                    } else {
                        est(10f64.powf(i as f64 * 0.4) * (1.0 + x), 0.1)
                    },
                    stable: !(i < 2 && x > 0.95),
                    // Series 3's last point has not settled: it is ringed.
                    settled: !(i == 3 && x == 0.99),
                    key: "k".repeat(64),
                })
                .collect(),
        })
        .collect();
    let fig = Figure {
        spec: spec(FigureKind::Lines),
        series,
        references: vec![],
        paths: vec![],
    };
    let p = plan(&fig);
    check("crowded", &p);
    assert_eq!(p.unstable_rows, vec![0, 1]);
    assert!(p.marks.iter().any(|m| m.kind == MarkKind::Bound));
    // The unsettled point is drawn, ringed, and the caption says what the
    // ring means; no other point is ringed.
    let ringed: Vec<_> = p.marks.iter().filter(|m| m.unsettled).collect();
    assert_eq!(ringed.len(), 1, "{ringed:?}");
    assert_eq!((ringed[0].series, ringed[0].kind), (3, MarkKind::Point));
    assert!(
        p.caption.join(" ").contains("dashed ring"),
        "{:?}",
        p.caption
    );
    // Colour, marker and dash: no two series share all three, and with no
    // variants no two share a colour.
    for (i, a) in p.styles.iter().enumerate() {
        for b in &p.styles[i + 1..] {
            assert_ne!(a.colour, b.colour);
            assert_ne!(a.marker, b.marker);
        }
    }
}

/// Variants of one policy share its colour and marker and differ by dash.
#[test]
fn variants_of_a_policy_share_a_colour_and_differ_by_dash() {
    let keys: Vec<(String, String)> = [
        ("A", "x = 1"),
        ("B", "x = 1"),
        ("A", "x = 2"),
        ("B", "x = 2"),
    ]
    .iter()
    .map(|(p, v)| (p.to_string(), v.to_string()))
    .collect();
    let s = lb_draw::style::styles(&keys);
    assert_eq!(s[0].colour, s[2].colour);
    assert_eq!(s[0].marker, s[2].marker);
    assert_ne!(s[0].dash, s[2].dash);
    assert_ne!(s[0].colour, s[1].colour);
    assert_eq!(s[0].dash, s[1].dash);
}

/// A path figure: thin replication paths and their mean, thick; the mean is
/// taken on a common grid of the step paths.
#[test]
fn path_figures_draw_replications_and_their_mean() {
    let a = vec![(0.0, 0.0), (1.0, 2.0), (2.0, 4.0), (3.0, 4.0)];
    let b = vec![(0.0, 2.0), (1.5, 0.0), (3.0, 0.0)];
    let m = mean_path(&[a.clone(), b.clone()], 4);
    assert_eq!(m, vec![(0.0, 1.0), (1.0, 2.0), (2.0, 2.0), (3.0, 2.0)]);
    let mut sp = spec(FigureKind::Path);
    sp.log_y = false;
    let fig = Figure {
        spec: sp,
        series: vec![],
        references: vec![],
        paths: vec![PathSeries {
            name: "max-pressure".into(),
            policy: "max-pressure".into(),
            variant: String::new(),
            paths: vec![a, b],
            mean: m,
            key: "k".repeat(64),
            stable: true,
        }],
    };
    let (text, p) = svg(&fig);
    check("path", &p);
    // Two thin paths (translucent) and the thick mean.
    assert_eq!(text.matches("stroke-opacity=\"0.35\"").count(), 2, "{text}");
    assert!(text.contains("stroke-width=\"2.8\""), "{text}");
    // No sample path recorded: the figure says so.
    let empty = Figure {
        paths: vec![],
        ..fig
    };
    assert!(svg(&empty).0.contains("no sample paths recorded"));
}

/// Every figure of the repository's manifests, drawn from the committed
/// cache: (experiment/figure, figure, plan).
fn repository_figures() -> Vec<(String, Figure, Layout)> {
    let cache = Cache::new(repo().join("results"));
    let dir = shipped_manifests();
    let mut out = Vec::new();
    for m in dir {
        let e = load(&m, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
        let results = collect(&cache, &e.plan);
        for f in e.loaded.figures() {
            let spec = FigureSpec::from_toml(e.loaded.model(), f);
            let fig = Figure::new(&spec, &results);
            let p = plan(&fig);
            out.push((
                format!("{}/{}", e.loaded.experiment().name, spec.name),
                fig,
                p,
            ));
        }
    }
    out
}

fn figure<'a>(all: &'a [(String, Figure, Layout)], name: &str) -> &'a (String, Figure, Layout) {
    all.iter()
        .find(|f| f.0 == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
}

/// Named references that are functions of x (the many-server model's λ
/// and N, the slotted model's load) are evaluated on a fine grid, not drawn as kinked lines through
/// the few values of the sweep; a number that holds at one load (`at`) is
/// drawn there only.
#[test]
fn references_are_curves_on_a_fine_grid_and_numbers_at_one_x_stay_there() {
    let all = repository_figures();
    for name in [
        "many-validation/mean-jobs",
        "many-validation/random-occupancy",
        "pod-mean-field-many/s2",
        "pod-mean-field-many/mean-response",
        "sub-halfin-whitt/sum-s-b",
        "sub-halfin-whitt-excess/excess-alpha-03",
        "example-pod-mean-field/pod-mean-field",
    ] {
        let (_, fig, _) = figure(&all, name);
        assert!(!fig.references.is_empty(), "{name}: no reference");
        for r in &fig.references {
            let RefShape::Curves(cs) = &r.shape else {
                continue;
            };
            assert!(!cs.is_empty(), "{name}: {} drew nothing", r.label);
            for c in cs {
                assert!(
                    c.len() > 50,
                    "{name}: {} is drawn through {} values, not a fine grid",
                    r.label,
                    c.len()
                );
            }
        }
    }
    // Lu–Kumar's fluid bound holds at ρ = 0.7: a bar there, not a line.
    let (_, fig, _) = figure(&all, "lu-kumar/growth");
    let fluid: Vec<&RefDrawn> = fig
        .references
        .iter()
        .filter(|r| r.label.contains("fluid"))
        .collect();
    assert_eq!(fluid.len(), 1);
    assert_eq!(
        fluid[0].shape,
        RefShape::Curves(vec![vec![(0.7, 1.0 / 6.0)]]),
        "{:?}",
        fluid[0]
    );
    // Rybko–Stolyar draws its fluid rate; validation Random's closed form;
    // Pod(2)'s λ³ mean field is drawn beside Random's λ².
    for (name, label) in [
        ("rybko-stolyar/growth", "fluid rate 1/3"),
        ("validation/validation", "Random: independent"),
        ("many-validation/random-occupancy", "Pod(2) mean field"),
    ] {
        let (_, fig, _) = figure(&all, name);
        assert!(
            fig.references.iter().any(|r| r.label.contains(label)),
            "{name}: no reference {label}"
        );
    }
}

/// Reference curves are painted over the series' lines (they often
/// coincide), on a halo, and under the markers.
#[test]
fn references_are_painted_over_the_series_lines() {
    let sp = FigureSpec {
        log_y: false,
        ..spec(FigureKind::Lines)
    };
    let fig = Figure {
        spec: sp,
        series: vec![Series {
            name: "A".into(),
            policy: "A".into(),
            variant: String::new(),
            dots: [0.3, 0.6, 0.9]
                .iter()
                .map(|&x| Dot {
                    x,
                    est: est(x, 0.01),
                    stable: true,
                    settled: true,
                    key: "k".repeat(64),
                })
                .collect(),
        }],
        references: vec![RefDrawn {
            label: "exact".into(),
            band: None,
            shape: RefShape::Curves(vec![vec![(0.3, 0.3), (0.6, 0.6), (0.9, 0.9)]]),
        }],
        paths: vec![],
    };
    let (text, p) = svg(&fig);
    check("painted", &p);
    let series_colour = format!(
        "#{:02x}{:02x}{:02x}",
        p.styles[0].colour.0, p.styles[0].colour.1, p.styles[0].colour.2
    );
    let lines: Vec<&str> = text.lines().collect();
    // The series' line (the legend's sample, later, is not the plot's).
    let last_series_line = lines
        .iter()
        .position(|l| {
            l.starts_with("<polyline")
                && l.contains(&series_colour)
                && l.contains("stroke-width=\"2\"")
        })
        .expect("the series' line");
    let reference = lines
        .iter()
        .position(|l| l.starts_with("<polyline") && l.contains("#282828"))
        .expect("the reference");
    let first_marker = lines
        .iter()
        .position(|l| l.starts_with("<polygon") && l.contains(&format!("fill=\"{series_colour}\"")))
        .expect("a marker");
    assert!(
        last_series_line < reference && reference < first_marker,
        "series line {last_series_line}, reference {reference}, marker {first_marker}"
    );
}

/// A figure's `y_range` fixes the axis; a point beyond it is drawn at the
/// edge (OffScale), and the decisive band keeps its room: the LED
/// heavy-traffic figure's y axis stops at 40 (JIQ's 83 drawn at the top),
/// the N-network's at 0.56.
#[test]
fn a_y_range_keeps_the_decisive_region_and_marks_points_beyond_it() {
    let all = repository_figures();
    let (_, _, p) = figure(&all, "led-heavy-traffic/heavy-traffic");
    assert_eq!((p.y.lo, p.y.hi), (0.8, 40.0));
    let off: Vec<_> = p
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::OffScale)
        .collect();
    assert_eq!(off.len(), 1, "{off:?}");
    assert!(off[0].cy < (p.plot.y0 + p.plot.y1) / 2.0 && off[0].x == 0.1);
    let (_, _, p) = figure(&all, "max-pressure-heavy-traffic/scaled-workload");
    assert_eq!((p.y.lo, p.y.hi), (0.38, 0.56));
    // 0.39–0.45, where the pooling policies are compared, takes a third of
    // the axis or more.
    assert!((p.py(0.39) - p.py(0.45)) > 0.3 * (p.y_px.0 - p.y_px.1));
    for (_, _, p) in &all {
        for (v, _) in &p.y.ticks {
            assert!(p.y.contains(*v), "a tick beyond the axis: {v}");
        }
    }
}

/// A y_range must be finite, increasing, and positive on a log axis; `at`
/// belongs to a number.
#[test]
fn y_range_and_at_are_validated() {
    let text = std::fs::read_to_string(repo().join("experiments/max-pressure-heavy-traffic.toml"))
        .unwrap();
    // Its own path: its sources cite by key, from the references beside it.
    let path = repo().join("experiments/max-pressure-heavy-traffic.toml");
    let path = path.as_path();
    assert!(lb_manifest::load_str(path, &text, Profile::Full).is_ok());
    for (bad, why) in [
        ("y_range = [0.56, 0.38]", "lo < hi"),
        ("y_range = [0.38, inf]", "finite"),
        ("y_range = [0.0, 0.56]\nlog_y = true", "log axis"),
    ] {
        let t = text.replace("y_range = [0.38, 0.56]", bad);
        assert_ne!(t, text);
        let e = lb_manifest::load_str(path, &t, Profile::Full)
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"))
            .to_string();
        assert!(e.contains("y_range") && e.contains(why), "{bad}: {e}");
    }
    let t = text.replace(
        "label = \"single pooled server\"",
        "label = \"single pooled server\"\nat = 0.9",
    );
    let Err(e) = lb_manifest::load_str(path, &t, Profile::Full) else {
        panic!("at on a named reference accepted");
    };
    let e = e.to_string();
    assert!(e.contains("at"), "{e}");
}

/// Where a figure's series are one policy's variants only (a swept
/// parameter: Pod's d), every series has its own colour and marker; where
/// several policies have variants, a policy's variants share its colour.
#[test]
fn one_policys_swept_variants_take_distinct_colours() {
    let keys: Vec<(String, String)> = ["d = 1", "d = 2", "d = 3", "d = 5"]
        .iter()
        .map(|v| ("Pod".to_string(), v.to_string()))
        .collect();
    let s = lb_draw::style::styles(&keys);
    for (i, a) in s.iter().enumerate() {
        for b in &s[i + 1..] {
            assert_ne!(a.colour, b.colour);
            assert_ne!(a.marker, b.marker);
        }
    }
    let all = repository_figures();
    for name in [
        "pod-mean-field-many/s2",
        "example-pod-mean-field/pod-mean-field",
    ] {
        let (_, _, p) = figure(&all, name);
        assert!(p.styles.len() >= 2, "{name}");
        for (i, a) in p.styles.iter().enumerate() {
            for b in &p.styles[i + 1..] {
                assert_ne!(a.colour, b.colour, "{name}: two series share a colour");
            }
        }
    }
}

/// Every committed figure sidecar names at least one record: path figures
/// too.
#[test]
fn every_committed_sidecar_names_its_records() {
    let mut n = 0;
    for e in std::fs::read_dir(repo().join("paper-figures")).unwrap() {
        let d = e.unwrap().path();
        if !d.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            if !f.to_string_lossy().ends_with(".keys.csv") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            let rows: Vec<&str> = text.lines().skip(1).filter(|l| !l.is_empty()).collect();
            assert!(!rows.is_empty(), "{}: header only", f.display());
            for r in rows {
                let key = r.rsplit(',').next().unwrap();
                assert_eq!(key.len(), 64, "{}: {r}", f.display());
            }
            n += 1;
        }
    }
    assert!(n >= 20, "only {n} sidecars");
}

/// Every figure says what its bars are: a caption that names no interval
/// gets the note, with the replications behind the bars; one that does is
/// left as written. Every shipped figure with bars says it one way or the
/// other.
#[test]
fn figures_say_what_their_bars_are() {
    use lb_analysis::figure::bars_note;
    let one = |n: usize| Series {
        name: "a".into(),
        policy: "a".into(),
        variant: String::new(),
        dots: [0.5, 0.9]
            .iter()
            .map(|&x| Dot {
                x,
                est: Estimate {
                    n,
                    ..est(1.0 + x, 0.1)
                },
                stable: true,
                settled: true,
                key: "k".repeat(64),
            })
            .collect(),
    };
    let fig = Figure {
        spec: spec(FigureKind::Lines),
        series: vec![one(4), one(12)],
        references: vec![],
        paths: vec![],
    };
    assert_eq!(
        bars_note(&fig, "E[ΣQ] against the load.").as_deref(),
        Some("Bars: 95% Student-t intervals over 4–12 independent replications.")
    );
    assert_eq!(bars_note(&fig, "Mean ± 95% interval."), None);
    for (name, fig, p) in repository_figures() {
        let has_bars = fig
            .series
            .iter()
            .flat_map(|s| &s.dots)
            .any(|d| d.est.lo.is_some());
        let caption = p.caption.join(" ").to_lowercase();
        assert!(
            !has_bars || caption.contains("interval") || caption.contains("upper bound"),
            "{name}: its caption does not say what its bars are: {caption}"
        );
    }
}

/// A difference figure draws what an ordering claim is decided on:
/// Fig. 2's L-JSQ-Push − L-JBA-Push, paired, one series per count_own;
/// with count_own = true it is above 0 at low load and below it from 0.93,
/// the reversal the claim is refuted on and Fig. 2's overplotted curves hide.
#[test]
fn a_difference_figure_shows_the_paired_difference() {
    let all = repository_figures();
    let (_, fig, p) = figure(&all, "led-fig2/fig2-ljba-difference");
    assert_eq!(
        fig.series.len(),
        2,
        "{:?}",
        fig.series.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let own = fig
        .series
        .iter()
        .find(|s| s.name.contains("count_own = true"))
        .expect("a count_own = true series");
    assert!(
        own.name.starts_with("L-JSQ-Push − L-JBA-Push"),
        "{}",
        own.name
    );
    let at = |x: f64| own.dots.iter().find(|d| (d.x - x).abs() < 1e-9).unwrap();
    assert!(at(0.5).est.lo.unwrap() > 0.0, "{:?}", at(0.5).est);
    assert!(at(0.95).est.hi.unwrap() < 0.0, "{:?}", at(0.95).est);
    // Linear, with room below 0 for the reversal.
    assert!(!p.y.log && p.y.lo < -100.0, "{:?}", (p.y.lo, p.y.hi));
}

/// The page size a PDF declares (its first `/MediaBox`), in points.
fn media_box(pdf: &[u8]) -> Option<(f64, f64)> {
    let text = String::from_utf8_lossy(pdf);
    let at = text.find("/MediaBox [")? + "/MediaBox [".len();
    let nums: Vec<f64> = text[at..]
        .split(']')
        .next()?
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    match nums[..] {
        [x0, y0, x1, y1] => Some((x1 - x0, y1 - y0)),
        _ => None,
    }
}

/// The PDF's streams, inflated where they are compressed.
fn streams(pdf: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = pdf;
    while let Some(i) = rest.windows(6).position(|w| w == b"stream") {
        let mut body = &rest[i + 6..];
        body = body.strip_prefix(b"\r").unwrap_or(body);
        body = body.strip_prefix(b"\n").unwrap_or(body);
        let Some(end) = body.windows(9).position(|w| w == b"endstream") else {
            break;
        };
        let raw = &body[..end];
        out.push(
            miniz_oxide::inflate::decompress_to_vec_zlib(raw).unwrap_or_else(|_| raw.to_vec()),
        );
        rest = &body[end + 9..];
    }
    out
}

/// What a figure's PDF must be for a paper: one page of the SVG's size in
/// points, its words set as text (a text object showing glyphs) in an
/// embedded font that maps back to Unicode, so a reader can search it.
fn check_pdf(name: &str, pdf: &[u8], width: f64, height: f64) {
    assert!(pdf.starts_with(b"%PDF-"), "{name}: not a PDF");
    let (w, h) = media_box(pdf).unwrap_or_else(|| panic!("{name}: no page size"));
    assert!(
        (w - width).abs() < 0.01 && (h - height).abs() < 0.01,
        "{name}: page {w} × {h} pt, the figure is {width} × {height} px"
    );
    let text = String::from_utf8_lossy(pdf);
    assert!(
        text.contains("/FontFile2") || text.contains("/FontFile3"),
        "{name}: the font is not embedded"
    );
    assert!(
        text.contains("/ToUnicode"),
        "{name}: its glyphs map to no text"
    );
    let shows_text = streams(pdf).iter().any(|s| {
        let s = String::from_utf8_lossy(s);
        s.contains("BT") && (s.contains("Tj") || s.contains("TJ"))
    });
    assert!(
        shows_text,
        "{name}: no text object: its words were drawn as paths"
    );
    // Every glyph shown reads as text (a letter without it cannot be
    // searched: a p last seen in p̂ once left every p of a figure without).
    let unmapped = lb_draw::pdf::unmapped_glyphs(pdf);
    assert!(
        unmapped.is_empty(),
        "{name}: glyphs {unmapped:?} have no text"
    );
}

/// Every figure of the repository converts to a PDF a paper can include,
/// and every figure under paper-figures/ has that PDF beside it.
#[test]
fn every_figure_is_also_a_pdf_with_its_text_as_text() {
    let all = repository_figures();
    assert!(all.len() > 20, "only {} figures", all.len());
    for (name, fig, p) in &all {
        let (text, _) = svg(fig);
        let pdf = lb_draw::pdf::from_svg(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_pdf(name, &pdf, p.width, p.height);
        // The same figure gives the same bytes: a PDF that did not change
        // does not churn the repository.
        assert_eq!(pdf, lb_draw::pdf::from_svg(&text).unwrap(), "{name}");
    }
    // The committed pages: each SVG's PDF, of its size.
    let root = repo().join("paper-figures");
    let mut shipped = 0;
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = f.path();
            if path.extension().is_none_or(|e| e != "svg") {
                continue;
            }
            let svg_text = std::fs::read_to_string(&path).unwrap();
            let dim = |attr: &str| -> f64 {
                let at = svg_text.find(&format!("{attr}=\"")).unwrap() + attr.len() + 2;
                svg_text[at..].split('"').next().unwrap().parse().unwrap()
            };
            let pdf_path = path.with_extension("pdf");
            let pdf = std::fs::read(&pdf_path)
                .unwrap_or_else(|e| panic!("{}: {e} (run lb reproduce)", pdf_path.display()));
            check_pdf(
                &pdf_path.display().to_string(),
                &pdf,
                dim("width"),
                dim("height"),
            );
            shipped += 1;
        }
    }
    assert!(shipped > 20, "only {shipped} figures under paper-figures/");
}
