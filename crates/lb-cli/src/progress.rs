//! Progress for `lb run` and `lb verify`: an indicatif bar with counts, rate and
//! ETA on a terminal; plain, throttled log lines otherwise (CI logs, pipes).

use indicatif::{ProgressBar, ProgressStyle};
use lb_store::run::Progress;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A bar on a terminal.
pub(crate) struct Bar {
    bar: Mutex<Option<ProgressBar>>,
}

/// Log lines.
pub(crate) struct Lines {
    state: Mutex<LineState>,
}

struct LineState {
    phase: String,
    total: u64,
    done: u64,
    start: Instant,
    last: Instant,
}

/// The right progress for stderr.
pub(crate) fn for_stderr() -> Box<dyn Progress> {
    if std::io::stderr().is_terminal() {
        Box::new(Bar {
            bar: Mutex::new(None),
        })
    } else {
        Box::new(Lines {
            state: Mutex::new(LineState {
                phase: String::new(),
                total: 0,
                done: 0,
                start: Instant::now(),
                last: Instant::now(),
            }),
        })
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        let pb = ProgressBar::new(total);
        pb.set_style(
            ProgressStyle::with_template(
                "{prefix:>12} [{bar:40}] {pos}/{len} {per_sec} ETA {eta} ({elapsed})",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        pb.set_prefix(phase.to_string());
        pb.enable_steady_tick(Duration::from_millis(250));
        *self.bar.lock().unwrap() = Some(pb);
    }
    fn grow(&self, more: u64) {
        if let Some(pb) = &*self.bar.lock().unwrap() {
            pb.inc_length(more);
        }
    }
    fn inc(&self, n: u64) {
        if let Some(pb) = &*self.bar.lock().unwrap() {
            pb.inc(n);
        }
    }
    fn log(&self, line: &str) {
        match &*self.bar.lock().unwrap() {
            Some(pb) => pb.println(line),
            None => eprintln!("{line}"),
        }
    }
    fn finish(&self) {
        if let Some(pb) = self.bar.lock().unwrap().take() {
            pb.finish();
        }
    }
}

fn eta(done: u64, total: u64, elapsed: Duration) -> String {
    if done == 0 {
        return "?".into();
    }
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
    let left = (total.saturating_sub(done)) as f64 / rate;
    format!("{rate:.1}/s, ETA {left:.0}s")
}

impl Lines {
    fn line(s: &LineState) {
        eprintln!(
            "[{}] {}/{} done, {}",
            s.phase,
            s.done,
            s.total,
            eta(s.done, s.total, s.start.elapsed())
        );
        let _ = std::io::stderr().flush();
    }
}

impl Progress for Lines {
    fn start(&self, phase: &str, total: u64) {
        let mut s = self.state.lock().unwrap();
        s.phase = phase.to_string();
        s.total = total;
        s.done = 0;
        s.start = Instant::now();
        s.last = Instant::now();
        eprintln!("[{phase}] {total} to do");
    }
    fn grow(&self, more: u64) {
        let mut s = self.state.lock().unwrap();
        s.total += more;
        if more > 0 {
            eprintln!("[{}] {more} more (precision targets not met yet)", s.phase);
        }
    }
    fn inc(&self, n: u64) {
        let mut s = self.state.lock().unwrap();
        s.done += n;
        if s.last.elapsed() >= Duration::from_secs(5) {
            s.last = Instant::now();
            Lines::line(&s);
        }
    }
    fn log(&self, line: &str) {
        eprintln!("{line}");
    }
    fn finish(&self) {
        let s = self.state.lock().unwrap();
        if s.total > 0 {
            Lines::line(&s);
        }
    }
}
