//! What a page merged over shards costs: the benchmark table's rows (200,000, in tie groups of
//! 100) spread over 1, 2, 4 and 8 SQLite files by a hash of the id, a page of 20 from the start
//! and after a cursor at depth 1,040 and half-way in, with `load_page_sharded` over every shard,
//! beside the same pages with `load_page` on one database holding them all. Every shard runs its
//! page (index seeks), so a merged page should cost about N pages, at any depth.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench shards     # results in target/keyset-bench/
//! ```
//!
//! Writes `shards.csv` and `shards-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`) and `shards.md` into `<target>/keyset-bench/`; the ratios come from
//! one interleaved run (see `measure::interleaved_in_batches`), so both sides of each saw the same load.

use std::fmt::Write as _;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use diesel::prelude::*;
use keyset_benches::measure::{self, Group, Ratios, Target};
use keyset_benches::schema::{bench_posts, Post};
use keyset_benches::shards;
use keyset_runtime::{Page, PageRequest, Paginate};

const PAGE: u32 = 20;
/// The shard counts; the first, one database, is what the others are weighed against.
const SHARDS: [i64; 4] = [1, 2, 4, 8];

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let rows = shards::rows();
    let mut clusters: Vec<Vec<SqliteConnection>> =
        SHARDS.iter().map(|&n| shards::sqlite(rows, n)).collect();
    let query = || bench_posts::table.select(Post::as_select());

    // Pages after a cursor near the start and two pages past half-way, both 40 rows into a tie
    // group of 100 (so each shard's page takes the same statements at either depth); their
    // tokens from the one database (an OFFSET, once).
    let depths = [52, (rows / 2) as u32 / PAGE + 2];
    let mut after = |number: u32| {
        let page = query().paginate(&PageRequest::page_number(number, PAGE)).unwrap();
        let token = page.load_page(&mut clusters[0][0]).unwrap().next_cursor.expect("a next page");
        PageRequest::after(token, PAGE)
    };
    let requests = [PageRequest::first(PAGE), after(depths[0]), after(depths[1])];

    // Every merged page is the one database's page, rows and tokens, before anything is timed.
    for request in &requests {
        let one = query().paginate(request).unwrap().load_page(&mut clusters[0][0]).unwrap();
        assert_eq!(one.items.len(), PAGE as usize);
        for cluster in &mut clusters {
            let merged =
                query().paginate(request).unwrap().load_page_sharded(&mut *cluster).unwrap();
            assert_eq!(merged, one, "{} shards", cluster.len());
        }
    }

    const PAGES: [&str; 3] = ["first page", "page at depth 1,040", "deep page"];
    let mut names: Vec<String> =
        PAGES.iter().map(|page| format!("one database, load_page: {page}")).collect();
    for n in SHARDS {
        names.extend(PAGES.iter().map(|page| format!("{n} shards merged: {page}")));
    }
    let mut run_page = |i: usize| -> Page<Post> {
        let request = &requests[i % 3];
        let paginated = query().paginate(request).unwrap();
        match i / 3 {
            0 => paginated.load_page(&mut clusters[0][0]),
            k => paginated.load_page_sharded(&mut clusters[k - 1]),
        }
        .unwrap()
    };

    let mut group = Group::new(criterion.benchmark_group("sqlite sharded page"), 20);
    group
        .settings()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let medians: Vec<Option<f64>> = (0..names.len())
        .map(|i| group.bench(BenchmarkId::from_parameter(&names[i]), || run_page(i)))
        .collect();
    group.finish();
    if medians.iter().any(Option::is_none) {
        return; // `--test`, or a filter: nothing measured, nothing to write
    }
    let labels: Vec<&str> = names.iter().map(String::as_str).collect();
    eprintln!("sqlite: interleaving {} pages for 12 s", labels.len());
    // Batches of 2 ms: each contender runs warm, as criterion runs it.
    let (total, batch) = (Duration::from_secs(12), Duration::from_millis(2));
    let interleaved = measure::interleaved_in_batches(&labels, total, batch, |i| {
        drop(std::hint::black_box(run_page(i)));
    });

    let (mut csv, mut table, mut ratios) = (String::new(), String::new(), Ratios::default());
    for (i, name) in names.iter().enumerate() {
        let (criterion, interleaved) = (medians[i].unwrap() / 1e3, interleaved[i] / 1e3);
        let _ = writeln!(csv, "sqlite,{name},{criterion:.1},{interleaved:.1}");
        let _ = writeln!(table, "| {name} | {criterion:.1} | {interleaved:.1} |");
    }
    let at = |i: usize| Some(interleaved[i]);
    let deep_one = at(2);
    ratios.add(
        "sqlite",
        "1 shard merged / load_page: deep page",
        at(5),
        deep_one,
        Target::AtMost(1.2),
    );
    let (shallow_depth, depth) = (depths[0] * PAGE, depths[1] * PAGE);
    for (k, n) in SHARDS.iter().enumerate() {
        let (first, shallow, deep) = (3 + 3 * k, 4 + 3 * k, 5 + 3 * k);
        let subject = format!("{n} shards");
        let name = format!("page at depth {depth} / at depth {shallow_depth}");
        ratios.add(&subject, &name, at(deep), at(shallow), Target::AtMost(1.1));
        ratios.add(&subject, "deep page / first page", at(deep), at(first), Target::None);
        ratios.add(&subject, "merged / one database: deep page", at(deep), deep_one, Target::None);
    }

    let markdown = format!(
        "A page of {PAGE} rows of {rows} posts spread over 1–8 SQLite files by a hash of the id, \
         merged with `load_page_sharded`, beside `load_page` on one database holding them all; \
         the deep page at depth {}; medians in µs.\n\n\
         | page | criterion | interleaved |\n|---|---:|---:|\n{table}\n{}",
        depths[1] * PAGE,
        ratios.markdown("shards"),
    );
    let header = "backend,page,criterion_median_us,interleaved_median_us\n";
    measure::write_results("shards", &format!("{header}{csv}"), &ratios, &markdown);
}
