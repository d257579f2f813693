//! Per-backend choice of the seek predicate's SQL shape, and of how a page's `LIMIT` is written
//! (the measurements behind each are in `limit.rs` and beside each backend's choices below).

use diesel::backend::Backend;
use diesel::query_builder::AstPass;
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::QueryResult;

use crate::token::Engine;

/// How a backend wants the seek predicate written. Implemented for each backend feature enabled.
pub trait SeekDialect: Backend {
    /// The engine, which a decoded cursor's values are checked against before they are bound
    /// ([`CursorValue::check_bind`](crate::token::CursorValue::check_bind)).
    const ENGINE: Engine;
    /// Whether a row-value comparison `(a, b) < (?, ?)` is an exact index seek here, and so the
    /// best shape when every key has the same direction. Where it is not (or not portable), the
    /// OR expansion with a leading bound is used.
    const ROW_VALUES: bool;
    /// Whether NULLs sort first in ascending order here (and so last in descending order).
    const ASC_NULLS_FIRST: bool;
    /// Whether ORDER BY takes `NULLS FIRST`/`NULLS LAST`; where not, a leading `x IS NULL` term
    /// places NULLs.
    const NULLS_CLAUSE: bool;
    /// Whether CREATE INDEX declares a NULL placement (so the index matches an ORDER BY only
    /// when the ORDER BY pins the same placement, even where no NULL can occur).
    const INDEX_NULLS_CLAUSE: bool;
    /// Whether a predicate whose rows are all NULL on a nullable leading key `x` (past a NULL
    /// cursor, or the NULLs after the values) is written with a disjunct that holds for no row,
    /// `(x IS NULL AND id < ?) OR x < NULL`: where `x IS NULL` is a conjunct of the whole
    /// predicate, an engine may look the NULLs up by `x` alone and test the rest on every NULL
    /// before the cursor, instead of seeking the index on `(x, id)`.
    const NULL_REGION_RANGE: bool = false;
    /// Whether a page that crosses a nullable leading key's NULL boundary is better fetched as
    /// two index seeks (one per region) than as one predicate with `OR x IS NULL`.
    const SPLIT_NULL_REGIONS: bool;
    /// Whether the OR expansion needs the redundant bound on the leading key (`c1 <= ? AND
    /// (..)`) to become an index range. Where the engine builds the ranges from the bare OR, the
    /// bound only adds planning work.
    const LEADING_BOUND: bool;
    /// Whether a page after (or before) a cursor is better fetched as one seek per tie level,
    /// innermost first, than as one predicate: `k1 = ? AND k2 < ?`, then `k1 < ?` only if the
    /// page is not yet full (see `Seek::start_level`). Each level is an
    /// equality prefix plus one range, which an index seeks exactly; a page then costs up to one
    /// statement per sort key instead of one. Only for models whose keys are all non-nullable,
    /// and only for queries that can run more than once ([`Repeat`](crate::Repeat)).
    const SEEK_PER_TIE_LEVEL: bool;
    /// Whether the tie levels of an order that no row value serves (mixed directions) are
    /// better fetched as one statement, their `UNION ALL` (see `sql/union.rs`), than as the OR
    /// expansion, which seeks only the leading bound. For queries that select the model alone
    /// and can run more than once.
    const UNITE_TIE_LEVELS: bool = false;
    /// Whether a page at a row's id in an order led by a nullable key runs the first statements
    /// of the key's two regions as one `UNION ALL` (see `machine/regions.rs`), rather than the
    /// values' first and the NULLs' only where that finds nothing.
    const UNITE_ROW_REGIONS: bool = false;
    /// How a page among a set of values seeks once per value (see `sql/members/`).
    const PER_VALUE: PerValue = PerValue::Union;
    /// Whether a page past a cursor in an order grouped by a joined row (`authors.name,
    /// authors.id, posts.created_at, posts.id`, see `SortOrder::GROUP_KEYS`) walks the groups
    /// one at a time: the rest of the cursor's group, then, while the page is short, the next
    /// group's key (`LIMIT 1` under the ORDER BY of the joined keys) and that group's rows, each
    /// statement one index seek per table (see `machine/groups.rs`), rather than one statement
    /// over every later group, which an engine that cannot merge the two tables' index orders
    /// reads and sorts whole.
    const WALK_GROUPS: bool = false;
    /// How a feed's page finds the end of the window of the order's index it walks first
    /// (`sql/window.rs`).
    const WINDOW: Windowing = Windowing::Subquery;
    /// The fewest values whose feed walks the window: a window that comes back short costs a
    /// statement more, which for a few values costs more than their seeks.
    const WINDOW_MIN_SET: usize = 1;
    /// The same on a first or last page.
    const EDGE_WINDOW_MIN_SET: usize = Self::WINDOW_MIN_SET;
    /// How a page's `LIMIT` is written: bound (`Bound`), or literally for the common page sizes
    /// (`Literal`) where the engine then plans the statement once (see `sql/limit.rs`).
    type LimitStyle: LimitStyle;
    /// Whether every value a page binds (cursor values, `LIMIT`, `OFFSET`) is written `+?`, which
    /// the planner cannot read, where a planner that reads bound values re-prepares a cached
    /// statement each time one is bound anew (see SQLite's implementation).
    const OPAQUE_BINDS: bool = false;
    /// Whether each cursor value is written `(SELECT ?)`, a value the planner takes as known
    /// only when the statement runs, where a planner that reads bound values plans a cached
    /// statement anew for each page whose values make a plan of their own look cheaper (see
    /// PostgreSQL's implementation). `LIMIT` and `OFFSET` stay bound as they are.
    const KEY_VALUES_AT_RUN_TIME: bool = false;
    /// The `EXPLAIN` that prints the planner's row estimate of a query as JSON, which an
    /// estimated count reads (`count/plan.rs`); `None` where the planner gives none, and an
    /// estimated count is a bounded one.
    const EXPLAIN_JSON: Option<&'static str> = None;
}

/// How a backend takes the page's limit: [`Bound`] or [`Literal`].
pub trait LimitStyle: 'static {
    /// Whether the limit and offset are written into the SQL text.
    const LITERAL: bool;
}

/// `LIMIT ?`: one statement for every page size.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(any(feature = "sqlite", feature = "mysql_backend")), allow(dead_code))]
pub struct Bound;

/// `LIMIT 21` for the common page sizes, each a statement PostgreSQL can plan once for good,
/// and `LIMIT $1` for the others (`sql/limit.rs`).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "postgres_backend"), allow(dead_code))]
pub struct Literal;

impl LimitStyle for Bound {
    const LITERAL: bool = false;
}

impl LimitStyle for Literal {
    const LITERAL: bool = true;
}

/// `?` for `value`, or `+?` where the backend wants its values opaque to the planner
/// ([`SeekDialect::OPAQUE_BINDS`]).
pub(super) fn push_value<'b, DB, ST, V>(
    mut out: AstPass<'_, 'b, DB>,
    value: &'b V,
) -> QueryResult<()>
where
    DB: SeekDialect + HasSqlType<ST>,
    V: ToSql<ST, DB>,
{
    if DB::OPAQUE_BINDS {
        out.push_sql("+");
    }
    out.push_bind_param::<ST, V>(value)
}

/// A cursor's value: [`push_value`], inside `(SELECT ..)` where the backend plans better without
/// reading it ([`SeekDialect::KEY_VALUES_AT_RUN_TIME`]).
pub(super) fn push_key_value<'b, DB, ST, V>(
    mut out: AstPass<'_, 'b, DB>,
    value: &'b V,
) -> QueryResult<()>
where
    DB: SeekDialect + HasSqlType<ST>,
    V: ToSql<ST, DB>,
{
    if !DB::KEY_VALUES_AT_RUN_TIME {
        return push_value::<DB, ST, V>(out, value);
    }
    out.push_sql("(SELECT ");
    push_value::<DB, ST, V>(out.reborrow(), value)?;
    out.push_sql(")");
    Ok(())
}

/// SQLite: the OR expansion with a leading bound (`a <= ? AND (a < ? OR (a = ? AND b < ?))`)
/// seeks only the leading column (`SEARCH t USING INDEX idx (a<?)`) and then steps through, and
/// filters out, every row of the cursor's tie group that precedes the cursor: a page costs
/// O(tie group), measured 2x the first page with 100 rows per timestamp, and unbounded for a
/// low-cardinality leading key such as a status. A row value `(a, b) < (?, ?)` seeks both
/// columns only when the tiebreaker is not the rowid (with `id INTEGER PRIMARY KEY`, the
/// common schema, the plan is still `(a<?)`), and with several indexes the planner picked one
/// with the wrong direction on the second column and sorted. What SQLite seeks exactly, rowid or
/// not, is an equality prefix plus one range, `a = ? AND b < ?` →
/// `SEARCH t USING INDEX idx (a=? AND b<?)`; so a page is fetched one tie level at a time
/// ([`SEEK_PER_TIE_LEVEL`](SeekDialect::SEEK_PER_TIE_LEVEL)), each level such a seek, at most
/// one statement per sort key (pinned: `tests/sqlite/plan.rs`).
#[cfg(feature = "sqlite")]
impl SeekDialect for diesel::sqlite::Sqlite {
    const ENGINE: Engine = Engine::Sqlite;
    const ROW_VALUES: bool = false;
    const ASC_NULLS_FIRST: bool = true;
    const NULLS_CLAUSE: bool = true;
    const INDEX_NULLS_CLAUSE: bool = false;
    const SPLIT_NULL_REGIONS: bool = true;
    const LEADING_BOUND: bool = true;
    // Not for a feed's loop over its values (`machine/plan.rs`): each value's seek of the index
    // led by the column reads, of the cursor's tie group, that value's rows alone. One
    // statement past the cursor there, where the levels ran two or three: deep / first page
    // among 10 authors 0.87-1.24, against 0.93-1.26 with the levels (1M posts, feeds bench).
    const SEEK_PER_TIE_LEVEL: bool = true;
    // SQLite's loop over an `IN (..)` list stops each value's rows at the first that cannot
    // enter the page (see `PerValue::InLoop`): the first page among 10 authors of 300 posts
    // each read 72 rows (`tests/sqlite/feed_reads.rs`). A union of one seek per value cost
    // SQLite about 10 µs a branch: 1.07 ms for 100 authors' first page against 0.17 for the
    // plain filter (1M posts, bench of 2026-12-04); pages that run the loop now cost 0.48-1.34x
    // the plain filter (bench of 2026-12-07).
    const PER_VALUE: PerValue = PerValue::InLoop;
    // A window that comes back short costs a statement more than the loop alone: among 10
    // authors a first page took 95-126 µs without it, against 161-171 with it, and a deep page
    // 117-122 against 199-205 (1M posts, bench of 2026-12-07).
    const WINDOW_MIN_SET: usize = 64;
    type LimitStyle = Bound;
    // SQLite's planner reads the value bound to `LIMIT ?` and, with the STAT4 statistics of the
    // bundled build, to `created_at = ?` or `< ?`, and marks the statement to be re-prepared
    // whenever that parameter is bound again: so every execution of a cached page statement was
    // prepared anew. Measured in C on the bench's 1,000,000 rows, against the same SQLite build:
    // a page after a cursor 26.0 µs, of which the re-preparation 13.7; the first page 20.6, of
    // which 9.0; written `+?` (unary plus is a no-op, and a bare parameter has no affinity or
    // collation to lose) neither re-prepares, each seeks the same index, and they cost 12.3 and
    // 11.6 µs. The planner then estimates the range from `sqlite_stat1` alone, as
    // `SQLITE_DBCONFIG_ENABLE_QPSG` would make it (which Diesel gives no way to set).
    const OPAQUE_BINDS: bool = true;
}

/// PostgreSQL turns a row value into an exact `Index Cond` on every column: nothing is filtered
/// after the seek. For mixed directions no row value exists: a page there is the `UNION ALL` of
/// its tie levels, each an exact seek (`sql/union.rs`), where the query allows it, else the OR
/// expansion with a leading bound.
#[cfg(feature = "postgres_backend")]
impl SeekDialect for diesel::pg::Pg {
    const ENGINE: Engine = Engine::Postgres;
    const ROW_VALUES: bool = true;
    const ASC_NULLS_FIRST: bool = false;
    const NULLS_CLAUSE: bool = true;
    const INDEX_NULLS_CLAUSE: bool = true;
    const SPLIT_NULL_REGIONS: bool = true;
    const LEADING_BOUND: bool = true;
    // For uniform directions the row value already seeks every column, in one statement; for
    // mixed ones the levels are one statement too, their union (below).
    const SEEK_PER_TIE_LEVEL: bool = false;
    // Mixed directions: the levels' union is a Merge Append of exact seeks (sql/union.rs).
    const UNITE_TIE_LEVELS: bool = true;
    // Each branch behind its one-time filter (the row's value is NULL or not) is an index seek
    // that the other region's skips. Measured (starts bench, 1M rows): 0.86–1.22× a token page,
    // where the values' statement first costs drafts a round trip more. SQLite tests a guard on
    // a subquery's value row by row (the wrong region's branch read every NULL before the row,
    // 5 ms), and MariaDB plans each branch of a union anew on every execution (1.35–1.48×): both
    // run the values' statement first.
    const UNITE_ROW_REGIONS: bool = true;
    // A page among a set: one seek per value, `LATERAL` over the values as an array.
    const PER_VALUE: PerValue = PerValue::Lateral;
    // The seeks of 10 values took 0.18 ms, and a window before them (short, as it mostly is
    // for so few) 0.25 ms more. Since the seeks read each value's first row first
    // (`sql/members/lateral.rs`), among 100 values a window that came back short made a first
    // page 1.19 and 1.77 ms where the seeks alone take 0.68 and 0.75, and one that filled the
    // page saved 0.3 ms (0.50 against 0.81); among 1,000 one that filled it took 1.4-1.6 ms
    // against about 4.2 for the seeks (1M posts, pages of 20, feeds bench of 2026-12-07).
    const WINDOW_MIN_SET: usize = 128;
    // With `LIMIT $n` a statement never gets a generic plan; with `LIMIT 21` it does after five
    // executions, so the common page sizes are written (sql/limit.rs).
    type LimitStyle = Literal;
    // PostgreSQL plans a prepared statement with its bound values for five executions, then
    // keeps its generic plan only while that looks no costlier than the custom ones did. Near
    // the top of a listing the seek's custom plan looks cheaper than the generic one (it sees
    // that most rows pass `created_at <= $1`), so such pages were planned anew every time:
    // measured with pgbench (prepared, 1,000,000 rows, pages of 20, `LIMIT 21`), the page after
    // the 20th row took 0.143-0.156 ms against the first page's 0.053-0.069; written
    // `(SELECT $1)`, whose value no plan sees, 0.067-0.073, and deep pages 0.062-0.071 either way.
    // Each subquery is an InitPlan, run once before the index seek that compares with its
    // value; a table partitioned by the leading key prunes the partitions behind the cursor when
    // the statement runs, under either plan (tests/postgres/range_partitions.rs).
    const KEY_VALUES_AT_RUN_TIME: bool = true;
    // The top plan node's `Plan Rows`.
    const EXPLAIN_JSON: Option<&'static str> = Some("EXPLAIN (FORMAT JSON)");
}

/// How a page among a set of values (a feed) seeks the index `(column, sort keys..)` once per
/// value, so that it reads at most about `|set| × (limit + 1)` entries whatever the data
/// (`sql/members/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerValue {
    /// A union of one branch per value, each limited to the page, merged under the page's ORDER
    /// BY: where the engine has neither of the others (MariaDB).
    Union,
    /// The values as one array, joined `LATERAL` to one seek: one statement text for every set
    /// (PostgreSQL).
    Lateral,
    /// The plain `IN (..)`, which the engine runs as a loop over the values, each seeking the
    /// index led by the column: it yields each value's rows in the order, and the loop moves to
    /// the next value at the first row that cannot enter the page (SQLite's "ORDER BY LIMIT"
    /// optimization of an ordered inner loop; the plan reads `USE TEMP B-TREE FOR ORDER BY`,
    /// a sorter holding the page alone). Written `likelihood(author_id IN (..), 0.000001)`,
    /// which tells the planner that the set's rows are rare among the table's: otherwise, where
    /// the set's rows are many, SQLite 3.40 (Debian 12's, which Diesel's `sqlite` feature links
    /// unless built bundled) walks the order's own index instead and filters, 500,021 rows for
    /// a first page among 100 of 200 authors whose 5,000 posts each were all old, against 266
    /// with it (measured by hand with a counting SQL function, as `tests/sqlite/feed_reads.rs`
    /// counts). The bundled 3.5x took the loop without it on every shape tried.
    InLoop,
}

/// How a feed's page finds where the window of the order's index it walks first ends
/// (`sql/window.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Windowing {
    /// In the window's own statement, by a scalar subquery (`created_at >= (SELECT created_at ..
    /// LIMIT 1 OFFSET k)`): where the engine bounds its index range by the subquery's value.
    Subquery,
    /// By a statement before the window's (the row `k` rows on), whose leading value the window
    /// then binds. The window keeps the set's filter from the range optimizer
    /// (`COALESCE(author_id) IN (..)`): with a bound it knows, MariaDB dived the prefix's
    /// index once per value to weigh it against the window's walk, 5.0 ms for 1,000 values
    /// against 0.7 without (1M posts, measured by hand).
    ///
    /// That statement is prepared anew for every page (`WindowRow`): a cached one, run again
    /// after other statements on the table, was planned as a scan and sort of the whole table.
    ReadFirst,
}

/// MySQL and MariaDB cannot range-scan a row-value comparison (`(a, b) < (?, ?)` reads every row
/// before the cursor); the OR expansion becomes an exact multi-column range, and needs no leading
/// bound to do so. Measured on MariaDB 10.11 (1M rows, ties of 100, prepared statements): a page
/// after a cursor reads the same 21 index entries as the first page, and all its extra time is
/// planning (range analysis and index dives); the leading bound adds ranges to analyse, and
/// leaving it out takes a page from 1.34x to 1.27x the first page's time.
#[cfg(feature = "mysql_backend")]
impl SeekDialect for diesel::mysql::Mysql {
    const ENGINE: Engine = Engine::Mysql;
    const ROW_VALUES: bool = false;
    const ASC_NULLS_FIRST: bool = true;
    // MySQL and MariaDB reject `NULLS FIRST/LAST`.
    const NULLS_CLAUSE: bool = false;
    const INDEX_NULLS_CLAUSE: bool = false;
    // Past a NULL cursor, `x IS NULL AND id < ?` is a `ref` lookup of `x IS NULL` to MariaDB
    // once the NULLs are many, and `id < ?` is tested on every NULL before the cursor (71,428
    // entries and 142,857 pushed-down tests half-way through 1,000,000 rows' 142,857 NULLs);
    // with `OR x < NULL`, which no row matches and `ref` cannot use, it seeks the range on
    // `(x, id)` and reads the page's 21 entries (handler counters; `tests/mysql/reads.rs`). The
    // key then stays in the ORDER BY: without it MariaDB walks the primary key and tests
    // `x IS NULL` on every row it reads, and with it but without the disjunct, it sorts.
    const NULL_REGION_RANGE: bool = true;
    // The single predicate with `OR x IS NULL` is a range here, but MariaDB then sorts what it
    // read (filesort, measured: tests/suite/migrations.rs); one seek per region keeps index order.
    const SPLIT_NULL_REGIONS: bool = true;
    const LEADING_BOUND: bool = false;
    // MariaDB's range optimizer turns the OR expansion into an exact multi-range (one range per
    // tie level) within one statement.
    const SEEK_PER_TIE_LEVEL: bool = false;
    // MariaDB does not bound an index range by an uncorrelated subquery's value: with the
    // window's `created_at >= (SELECT ..)` it read every row of the set before the cursor from
    // the prefix's index and sorted them (1,500 rows for three authors, measured by hand); made
    // to evaluate the subquery while planning (`expensive_subquery_limit`), it planned the
    // subquery itself as a scan of the prefix's index and a sort on some pages (120 ms a page in
    // the bench). So the window's end is read first, by a statement of its own (0.5 ms for
    // k = 4,083 of 1M posts: the order's index alone, the row fetched by its key), and bound.
    const WINDOW: Windowing = Windowing::ReadFirst;
    // An ORDER BY over two tables is sorted in a temporary table here, whatever the indexes:
    // one statement past a cursor read and sorted every later group's rows (112-131 ms at depth
    // 50,040 of 100,000 posts by 1,000 authors), where the group walk's statements each seek
    // (0.41-0.44 ms by hand, the same rows; joins bench).
    const WALK_GROUPS: bool = true;
    // A window that comes back short costs two statements more than the seeks: for 10 values
    // the seeks alone took 0.37 ms (bench).
    const WINDOW_MIN_SET: usize = 64;
    // A first page's seeks plan no cursor (about 27 µs a value), so there a short window weighs
    // more: among 100 authors it took 3.8 and 5.1 ms against the seeks' 2.3 and 2.8, where one
    // that filled the page saved 1.3 (1.1 against 2.4); among 1,000, a short one 32 against 27,
    // one that filled the page 2.1 against 27-31 (1M posts, bench of 2026-12-07). From 256.
    const EDGE_WINDOW_MIN_SET: usize = 256;
    // MariaDB plans every execution anew whatever the limit: a literal one would only multiply
    // statements.
    type LimitStyle = Bound;
    // Each table access's `rows` times its `filtered` share (MySQL: `rows_produced_per_join`).
    const EXPLAIN_JSON: Option<&'static str> = Some("EXPLAIN FORMAT=JSON");
}
