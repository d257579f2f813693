//! Where the orders bench's pages start, and what their plans are, in a few words.

use keyset_runtime::explain::PlanError;
use keyset_runtime::{Keyset, PageRequest};

use crate::pages::PAGE;

/// A page measured: where, the request, the rows it must return, and the cursor it follows.
pub struct Position<M: Keyset> {
    pub label: &'static str,
    pub depth: i64,
    pub request: PageRequest,
    pub cursor: Option<M::Cursor>,
    pub expected: Vec<M>,
    /// Whether the expert's page is timed at this cursor.
    pub expert: bool,
}

/// Where the pages of an order start, found in its rows by `LIMIT/OFFSET`.
pub fn positions<M: Keyset + Clone>(
    mut window: impl FnMut(i64, i64) -> Vec<M>,
    ties: fn(&M, &M) -> bool,
    nullable: bool,
) -> Vec<Position<M>> {
    let rows = crate::seed::rows();
    assert!(
        rows % 100 == 0 && rows >= 10_000,
        "KEYSET_BENCH_ROWS: a multiple of 100, 10,000 at least"
    );
    let at = |label, window: &[M], offset: i64, i: usize, expert| Position {
        label,
        depth: offset + i as i64 + 1,
        request: crate::order_pages::after::<M>(&window[i].cursor()),
        cursor: Some(window[i].cursor()),
        expected: window[i + 1..=i + PAGE as usize].to_vec(),
        expert,
    };
    let first = Position {
        label: "first page",
        depth: 0,
        request: PageRequest::first(PAGE),
        cursor: None,
        expected: window(0, i64::from(PAGE)),
        expert: false,
    };
    // The last 230 rows: the cursor is the last one that 30 rows follow (as in the depth bench)
    // and that 21 rows of its own tie group follow (on SQLite one statement, its own level).
    let offset = rows - 230;
    let end = window(offset, 230);
    let inside = (0..end.len() - 30)
        .rev()
        .find(|&i| (1..=21).all(|k| ties(&end[i], &end[i + k])))
        .expect("a cursor inside its tie group");
    if !nullable {
        // The last cursor that ends its tie group (on SQLite: an empty level, then the next).
        let ends = (0..end.len() - 30)
            .rev()
            .find(|&i| !ties(&end[i], &end[i + 1]))
            .expect("a cursor ending its tie group");
        return vec![
            first,
            at("deepest: cursor inside its tie group", &end, offset, inside, true),
            at("deepest: cursor ends its tie group", &end, offset, ends, true),
        ];
    }
    // The drafts follow the last value, at `values`.
    let values = rows - rows / crate::order_seed::DRAFT_EVERY;
    let start = values - 230;
    let near = window(start, 260);
    let last = (values - start - 1) as usize;
    assert!(!ties(&near[last], &near[last + 1]), "the last value is at {values}");
    assert!(ties(&near[last + 1], &near[last + 2]), "drafts follow the values");
    let in_values = (0..last - 21)
        .rev()
        .find(|&i| (1..=21).all(|k| ties(&near[i], &near[i + k])))
        .expect("a cursor inside a tie group of the values");
    // Half-way through the drafts, where as many drafts lie behind the cursor as ahead of it.
    let middle = values + (rows - values) / 2 - 30;
    let drafts = window(middle, 60);
    vec![
        first,
        at("deep in the values: cursor inside its tie group", &near, start, in_values, false),
        at("cursor is the last value: the drafts follow", &near, start, last, false),
        at("a draft's cursor half-way through the drafts", &drafts, middle, 30, true),
        at("deepest: a draft's cursor, inside the drafts", &end, offset, inside, true),
    ]
}

/// A plan in a few words: an index seek (and how), an index read from the start of its range,
/// or what else it is. The first page and the drafts' region after the last value have no
/// cursor bound to seek: read from the start of the index, or of its NULLs (`published_at IS
/// NULL`: MariaDB's `ref` access), in index order, which the plan checks, wanting a seek, do not
/// count as one; a sort there is still reported.
pub fn verdict(statement: &str, plan: Result<Vec<String>, PlanError>) -> String {
    let from_start = ["first page", "NULL region: the next"].contains(&statement);
    match plan {
        Ok(plan) => format!("index seek: {}", summary(&plan)),
        Err(PlanError::NotASeek { reason, plan }) if from_start && !reason.contains("sorted") => {
            format!("index read from the start of its range, no sort: {}", summary(&plan))
        }
        Err(PlanError::NotASeek { reason, plan }) => {
            eprintln!("NOT AN INDEX SEEK ({statement}): {reason}\n{}", plan.join("\n"));
            format!("**NOT AN INDEX SEEK**: {reason}: {}", summary(&plan))
        }
        Err(err) => panic!("{statement}: {err}"),
    }
}

/// The lines of a plan that say how the table is read (MariaDB's JSON plans are long).
pub fn summary(plan: &[String]) -> String {
    const TELLING: &[&str] = &[
        "SEARCH",
        "SCAN",
        "B-TREE",
        "Index",
        "Sort",
        "Filter",
        "\"access_type\"",
        "\"key\"",
        "\"used_key_parts\"",
        "filesort",
        "_condition\"",
    ];
    let lines: Vec<String> = plan
        .iter()
        .map(|line| line.trim())
        .filter(|line| TELLING.iter().any(|word| line.contains(word)))
        .map(|line| line.replace('|', "\\|"))
        .collect();
    lines.join(" / ")
}
