//! Figures a reader can trust at a glance (issue 10), checked on the layout
//! the renderer paints ([`plan`]), not on pixels: the legend covers no data
//! point, unstable marks never cover one another, log axes are labelled at
//! 1-2-5 values and integer axes at integers — for every figure of the
//! repository's manifests drawn from the committed cache, and for synthetic
//! figures built to crowd the corners.

use lb_analysis::collect;
use lb_analysis::figure::{
    Dot, Figure, FigureSpec, MarkKind, PathSeries, Plan, Series, mean_path, plan, svg,
};
use lb_analysis::stats::{Estimate, IntervalKind};
use lb_runner::cache::Cache;
use lb_runner::outputs::FigureKind;
use lb_runner::{Profile, load};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What every figure must satisfy.
fn check(name: &str, p: &Plan) {
    let canvas = lb_analysis::figure::Rect {
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
    let mut dir: Vec<PathBuf> = std::fs::read_dir(repo().join("experiments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    dir.sort();
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
    let s = lb_analysis::figure::styles(&keys);
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
