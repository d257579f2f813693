//! A feed's statement as SQLite plans it (`EXPLAIN QUERY PLAN`), for `suite/feeds/plan.rs`:
//! each read of `posts` (`SEARCH posts USING INDEX i (author_id=? AND created_at<?)`; a fetch
//! of rows by their tiebreaker, `SEARCH posts USING INDEX pk (id=?)`), whether its select sorts
//! (`USE TEMP B-TREE FOR ORDER BY` beside it, under the same parent step), and the other sorts.
//! SQLite counts no rows: `rows` and `loops` are `None`.
//!
//! A read of the feed's index by `author_id=?` with a sort beside it is SQLite's loop over the
//! `IN (..)` list: the index yields each value's rows in the page's order, and under the page's
//! LIMIT the loop moves to the next value at the first row that cannot enter the page, so the
//! sort holds the page alone and is not reported as sorting the read (`sqlite/feed_reads.rs`
//! counts the rows that loop reads; the plan cannot show it).
//!
//! A statement of one tie level past the cursor (`created_at = ? AND id < ?`, SQLite's pages
//! seek one tie level at a time) may read the order's own index by that equality instead,
//! where SQLite's statistics say a tie group holds fewer rows than a seek per value reads:
//! it reads the cursor's tie group, the one tie level any page may read.

use diesel::query_builder::AstPass;
use diesel::sql_types::{Integer, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryResult, RunQueryDsl};

use crate::suite::feeds::plan::{FeedPlan, Read, FEED_INDEX};
use crate::suite::feeds::recorded::{Again, Recorded};
use crate::Conn;

/// SQLite binds no arrays: a feed's set is one bind per branch.
pub fn push_array(_: AstPass<'_, '_, Sqlite>, values: &[i64]) -> QueryResult<()> {
    panic!("SQLite statements bind no arrays: {values:?}")
}

pub fn plan(conn: &mut Conn, recorded: &Recorded) -> FeedPlan {
    let steps: Vec<(i32, i32, i32, String)> =
        Again::<(Integer, Integer, Integer, Text)>::new("EXPLAIN QUERY PLAN ", recorded)
            .load(conn)
            .unwrap();
    let depth = |mut parent: i32| {
        let mut depth = 0;
        while let Some(step) = steps.iter().find(|step| step.0 == parent) {
            (parent, depth) = (step.1, depth + 1);
        }
        depth
    };
    let text = steps
        .iter()
        .map(|(_, parent, _, detail)| format!("{}{detail}", "  ".repeat(depth(*parent))))
        .collect::<Vec<_>>()
        .join("\n");
    let sorts_beside = |parent: i32| {
        steps.iter().any(|step| step.1 == parent && step.3.contains("TEMP B-TREE FOR ORDER BY"))
    };
    let mut reads = Vec::new();
    for (_, parent, _, detail) in &steps {
        let Some(how) = ["SEARCH posts", "SCAN posts"].iter().find_map(|s| detail.strip_prefix(s))
        else {
            continue;
        };
        let index = match how.split_once("INDEX ") {
            _ if how.contains("PRIMARY KEY") => "PRIMARY KEY".to_owned(),
            Some((_, rest)) => rest.split(' ').next().unwrap().to_owned(),
            None => String::new(),
        };
        let prefix = how.contains("(author_id=?");
        let by_key = how.ends_with("(id=?)") || how.ends_with("(rowid=?)");
        let sorted = sorts_beside(*parent) && !(index == FEED_INDEX && prefix);
        // A tie level's read of the order's index: `(created_at=? AND id>?)`.
        let tie_group = !prefix && how.contains("=? AND ");
        reads.push(Read { index, prefix, by_key, rows: None, loops: None, sorted, tie_group });
    }
    let read_parents: Vec<i32> = steps
        .iter()
        .filter(|step| step.3.starts_with("SEARCH posts") || step.3.starts_with("SCAN posts"))
        .map(|step| step.1)
        .collect();
    let sorts = steps
        .iter()
        .filter(|step| step.3.contains("TEMP B-TREE") && !read_parents.contains(&step.1))
        .map(|_| None)
        .collect();
    FeedPlan { reads, sorts, text }
}
