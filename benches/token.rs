//! The cursor token codec against a naive baseline, base64 of serde_json (URL-safe, unpadded:
//! the shortest form of the naive token), for cursors of two and three keys with a timestamp, and of
//! two integer keys: encode and decode time, and token length.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench token
//! ```
//!
//! Writes `token.csv` and `token-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`), and a Markdown table, `token.md`, into `<target>/keyset-bench/`.

use std::fmt::Write as _;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::DateTime;
use criterion::{BenchmarkId, Criterion};
use keyset_benches::measure::{self, Group, Ratios, Target};
use keyset_benches::schema::{Post, PostCursor, Ranked, RankedCursor, Scored, ScoredCursor};
use keyset_runtime::__testing::token;
use keyset_runtime::Direction;
use keyset_runtime::Keyset;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    // A timestamp with microseconds, as PostgreSQL and MariaDB store them.
    let created_at =
        DateTime::from_timestamp_micros(1_700_000_000_123_456).expect("in range").naive_utc();
    let mut csv = String::from("cursor,codec,encode_ns,decode_ns,encode_decode_ns,token_chars\n");
    let mut ratios = Ratios::default();
    bench::<Post, _>(
        &mut criterion,
        "2 keys: timestamp + id",
        &PostCursor { created_at, id: 987_654_321 },
        &naive::Post { created_at, id: 987_654_321 },
        &mut csv,
        &mut ratios,
    );
    bench::<Ranked, _>(
        &mut criterion,
        "3 keys: score + timestamp + id",
        &RankedCursor { score: 4711, created_at, id: 987_654_321 },
        &naive::Ranked { score: 4711, created_at, id: 987_654_321 },
        &mut csv,
        &mut ratios,
    );
    bench::<Scored, _>(
        &mut criterion,
        "2 keys: score + id",
        &ScoredCursor { score: 4711, id: 987_654_321 },
        &naive::Scored { score: 4711, id: 987_654_321 },
        &mut csv,
        &mut ratios,
    );
    criterion.final_summary();
    if ratios.0.is_empty() {
        return; // `--test`, or everything filtered out
    }
    measure::write_results("token", &csv, &ratios, &ratios.markdown("cursor"));
}

/// The naive cursors: the same fields, with `#[derive(Serialize, Deserialize)]`.
mod naive {
    use chrono::NaiveDateTime;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    pub struct Post {
        pub created_at: NaiveDateTime,
        pub id: i64,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    pub struct Ranked {
        pub score: i32,
        pub created_at: NaiveDateTime,
        pub id: i64,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    pub struct Scored {
        pub score: i32,
        pub id: i64,
    }
}

fn naive_encode<C: Serialize>(cursor: &C) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(cursor).expect("serializes"))
}

fn naive_decode<C: DeserializeOwned>(token: &str) -> C {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(token).expect("base64")).expect("json")
}

fn ours_encode<M: Keyset>(cursor: &M::Cursor) -> String {
    token::encode(M::FINGERPRINT, Direction::After, cursor).expect("encodes")
}

fn ours_decode<M: Keyset>(token: &str) -> M::Cursor {
    token::decode(M::FINGERPRINT, Direction::After, token).expect("decodes")
}

fn bench<M: Keyset, N>(
    criterion: &mut Criterion,
    label: &str,
    cursor: &M::Cursor,
    naive_cursor: &N,
    csv: &mut String,
    ratios: &mut Ratios,
) where
    M::Cursor: PartialEq + std::fmt::Debug,
    N: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let ours = ours_encode::<M>(cursor);
    let naive = naive_encode(naive_cursor);
    assert_eq!(&ours_decode::<M>(&ours), cursor, "our token round-trips");
    assert_eq!(&naive_decode::<N>(&naive), naive_cursor, "the naive token round-trips");
    eprintln!("{label}: ours {} chars `{ours}`; naive {} chars `{naive}`", ours.len(), naive.len());

    let mut group = Group::new(criterion.benchmark_group(format!("token {label}")), 100);
    group.settings().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    let times = [
        group.bench(BenchmarkId::from_parameter("keyset encode"), || ours_encode::<M>(cursor)),
        group.bench(BenchmarkId::from_parameter("keyset decode"), || ours_decode::<M>(&ours)),
        group.bench(BenchmarkId::from_parameter("naive encode"), || naive_encode(naive_cursor)),
        group.bench(BenchmarkId::from_parameter("naive decode"), || naive_decode::<N>(&naive)),
    ];
    group.finish();
    if times.iter().any(Option::is_none) {
        return;
    }

    // The ratio, from one interleaved run (see `measure::interleaved`).
    let both = measure::interleaved(
        &["keyset encode+decode", "naive encode+decode"],
        Duration::from_secs(4),
        |i| {
            if i == 0 {
                std::hint::black_box(ours_decode::<M>(&ours_encode::<M>(std::hint::black_box(
                    cursor,
                ))));
            } else {
                std::hint::black_box(naive_decode::<N>(&naive_encode(std::hint::black_box(
                    naive_cursor,
                ))));
            }
        },
    );
    let ns = |t: Option<f64>| t.map_or(String::new(), |t| format!("{t:.1}"));
    let _ = writeln!(
        csv,
        "{label},keyset,{},{},{:.1},{}",
        ns(times[0]),
        ns(times[1]),
        both[0],
        ours.len()
    );
    let _ = writeln!(
        csv,
        "{label},naive,{},{},{:.1},{}",
        ns(times[2]),
        ns(times[3]),
        both[1],
        naive.len()
    );
    ratios.push(
        label,
        "naive / keyset time (encode + decode)",
        both[1] / both[0],
        Target::AtLeast(3.0),
    );
    ratios.push(
        label,
        "keyset / naive token length",
        ours.len() as f64 / naive.len() as f64,
        Target::AtMost(0.7),
    );
}
