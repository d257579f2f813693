//! From samples to medians, ratios and files.
//!
//! Each criterion benchmark runs through [`Bencher::iter_custom`], which hands us every sample
//! criterion takes (iterations, elapsed). Criterion's warm-up calls come first and its
//! `sample_size` measurement samples last, so the last `sample_size` calls are exactly the samples
//! criterion analyses; their median time per call goes into the CSV files.
//!
//! Criterion measures one benchmark after another, so on a shared machine (other builds come and
//! go from second to second) two benchmarks a minute apart can see different loads. The ratios
//! with tight targets therefore come from [`interleaved`]: short batches of each contender in
//! turn, so that every contender sees the same load, and the median of each one's batches.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup, BenchmarkId};

/// A criterion benchmark group and the sample size it was given.
pub struct Group<'a> {
    group: BenchmarkGroup<'a, WallTime>,
    sample_size: usize,
}

impl<'a> Group<'a> {
    /// Wraps `group`, setting its sample size.
    pub fn new(mut group: BenchmarkGroup<'a, WallTime>, sample_size: usize) -> Self {
        group.sample_size(sample_size);
        Group { group, sample_size }
    }

    /// The criterion group, for its other settings.
    pub fn settings(&mut self) -> &mut BenchmarkGroup<'a, WallTime> {
        &mut self.group
    }

    /// Benchmarks `f` as `id` and returns its median time per call in nanoseconds, or `None`
    /// when criterion did not measure it (filtered out on the command line, or `--test`).
    pub fn bench<R>(&mut self, id: BenchmarkId, mut f: impl FnMut() -> R) -> Option<f64> {
        let mut samples: Vec<(u64, Duration)> = Vec::new();
        self.group.bench_function(id, |b: &mut Bencher<'_, WallTime>| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(f());
                }
                let elapsed = start.elapsed();
                samples.push((iters, elapsed));
                elapsed
            })
        });
        if samples.len() < self.sample_size {
            return None;
        }
        let measured = &samples[samples.len() - self.sample_size..];
        Some(median(
            measured.iter().map(|&(iters, elapsed)| elapsed.as_nanos() as f64 / iters as f64),
        ))
    }

    /// Ends the group (criterion prints its summary).
    pub fn finish(self) {
        self.group.finish();
    }
}

/// Times contenders `names[i]`, each run by `run(i)`, in short batches taken in turn (round after
/// round, the order rotating), for about `total`, and returns each one's median time per call, in
/// nanoseconds.
pub fn interleaved(names: &[&str], total: Duration, run: impl FnMut(usize)) -> Vec<f64> {
    interleaved_in_batches(names, total, Duration::from_micros(20), run)
}

/// [`interleaved`] with batches of about `batch` each (one call at least). Where contenders
/// differ a hundredfold, short batches time the fast one with the caches the slow one left
/// cold; batches of a few milliseconds time it warm, as criterion does.
pub fn interleaved_in_batches(
    names: &[&str],
    total: Duration,
    batch: Duration,
    mut run: impl FnMut(usize),
) -> Vec<f64> {
    // Calibrate: how many calls make a batch of about `batch` (this also warms every contender
    // up).
    let calls: Vec<u32> = (0..names.len())
        .map(|i| {
            let started = Instant::now();
            let mut calls = 0u32;
            while started.elapsed() < Duration::from_millis(20) || calls < 3 {
                run(i);
                calls += 1;
            }
            let per_call = started.elapsed() / calls;
            (batch.as_nanos() / per_call.as_nanos().max(1)).clamp(1, 100_000) as u32
        })
        .collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let started = Instant::now();
    let mut round = 0;
    while started.elapsed() < total || round < 10 {
        for k in 0..names.len() {
            let i = (k + round) % names.len();
            let batch_started = Instant::now();
            for _ in 0..calls[i] {
                run(i);
            }
            samples[i].push(batch_started.elapsed().as_nanos() as f64 / f64::from(calls[i]));
        }
        round += 1;
    }
    for (name, samples) in names.iter().zip(&samples) {
        eprintln!(
            "interleaved: {name}: median {:.1} µs over {} batches",
            median(samples.iter().copied()) / 1e3,
            samples.len()
        );
    }
    samples.into_iter().map(median).collect()
}

/// The median of some numbers (the mean of the middle two for an even count).
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.into_iter().collect();
    assert!(!values.is_empty(), "the median of nothing");
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// What a ratio must be.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// At most this.
    AtMost(f64),
    /// At least this.
    AtLeast(f64),
    /// Reported for context; no target.
    None,
}

impl Target {
    fn verdict(self, value: f64) -> &'static str {
        match self {
            Target::AtMost(max) if value <= max => "meets",
            Target::AtLeast(min) if value >= min => "meets",
            Target::None => "",
            _ => "MISSES",
        }
    }

    fn describe(self) -> String {
        match self {
            Target::AtMost(max) => format!("≤ {max}"),
            Target::AtLeast(min) => format!("≥ {min}"),
            Target::None => String::new(),
        }
    }
}

/// One ratio of two medians measured in the same run.
#[derive(Debug, Clone)]
pub struct Ratio {
    /// What was measured on: a backend, or a cursor shape.
    pub subject: String,
    /// Which two measurements, e.g. `keyset page / expert page`.
    pub name: String,
    pub value: f64,
    pub target: Target,
}

/// Ratios collected over a run, written as CSV and printed as a Markdown table.
#[derive(Debug, Default)]
pub struct Ratios(pub Vec<Ratio>);

impl Ratios {
    /// Records `numerator / denominator` when both were measured.
    pub fn add(
        &mut self,
        subject: &str,
        name: &str,
        numerator: Option<f64>,
        denominator: Option<f64>,
        target: Target,
    ) {
        if let (Some(n), Some(d)) = (numerator, denominator) {
            self.push(subject, name, n / d, target);
        }
    }

    /// Records a ratio computed elsewhere.
    pub fn push(&mut self, subject: &str, name: &str, value: f64, target: Target) {
        self.0.push(Ratio { subject: subject.to_owned(), name: name.to_owned(), value, target });
    }

    /// `subject,ratio,value,target,verdict` lines (a field with a comma quoted, [`csv_field`]).
    pub fn csv(&self) -> String {
        let mut out = String::from("subject,ratio,value,target,verdict\n");
        for r in &self.0 {
            let _ = writeln!(
                out,
                "{},{},{:.3},{},{}",
                csv_field(&r.subject),
                csv_field(&r.name),
                r.value,
                r.target.describe(),
                r.target.verdict(r.value)
            );
        }
        out
    }

    /// A Markdown table of the ratios.
    pub fn markdown(&self, subject_header: &str) -> String {
        let mut out =
            format!("| {subject_header} | ratio | value | target | |\n|---|---|---:|---|---|\n");
        for r in &self.0 {
            let value = if r.value >= 100.0 {
                format!("{:.0}", r.value)
            } else {
                format!("{:.3}", r.value)
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                r.subject,
                r.name,
                value,
                r.target.describe(),
                r.target.verdict(r.value)
            );
        }
        out
    }
}

/// `field` as a CSV field: quoted (its quotes doubled) when it holds a comma or a quote.
pub fn csv_field(field: &str) -> String {
    if field.contains([',', '"']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// Writes `contents` to `dir/name` and says so.
pub fn write(dir: &Path, name: &str, contents: &str) {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
    eprintln!("wrote {}", path.display());
}

/// Writes a bench's results: `{name}.csv` (header line included in `csv`) and
/// `{name}-ratios.csv` into [`crate::out_dir`] (`docs/` under `benches/run.sh`), and `markdown`
/// as `{name}.md` into [`crate::work_dir`], from which `benches/run.sh` assembles
/// `docs/benchmarks.md`; then prints the Markdown.
pub fn write_results(name: &str, csv: &str, ratios: &Ratios, markdown: &str) {
    let out = crate::out_dir();
    write(&out, &format!("{name}.csv"), csv);
    write(&out, &format!("{name}-ratios.csv"), &ratios.csv());
    write(&crate::work_dir(), &format!("{name}.md"), markdown);
    println!("\n{markdown}");
}

/// What most benches collect as they run: CSV rows (their header apart), the rows of a
/// Markdown table, and the ratios.
#[derive(Debug, Default)]
pub struct Results {
    pub csv: String,
    pub table: String,
    pub ratios: Ratios,
}

impl Results {
    /// Whether nothing was measured: `--test`, or every benchmark filtered out.
    pub fn is_empty(&self) -> bool {
        self.ratios.0.is_empty()
    }

    /// [`write_results`], the CSV under `header` (a line).
    pub fn write(&self, name: &str, header: &str, markdown: &str) {
        write_results(name, &format!("{header}{}", self.csv), &self.ratios, markdown);
    }
}
