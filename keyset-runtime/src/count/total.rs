//! [`TotalCount`]: the count a page reports, and what kind of number it is.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// What kind of number a [`TotalCount`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "async-graphql", derive(async_graphql::Enum))]
pub enum TotalKind {
    /// The listing has exactly this many rows (an exact count, or a bounded one under its cap).
    Exact,
    /// The listing has at least this many rows: a bounded count reached its cap ("1,000+").
    AtLeast,
    /// The planner estimates about this many rows.
    Estimated,
}

impl TotalKind {
    /// Its name in a page's JSON: `exact`, `at_least` (`atLeast` in
    /// [`CamelCase`](crate::CamelCase)) or `estimated`.
    ///
    /// ```
    /// # use keyset_runtime::TotalKind;
    /// assert_eq!(TotalKind::AtLeast.name(false), "at_least");
    /// assert_eq!(TotalKind::AtLeast.name(true), "atLeast");
    /// ```
    pub fn name(self, camel_case: bool) -> &'static str {
        match (self, camel_case) {
            (TotalKind::Exact, _) => "exact",
            (TotalKind::AtLeast, false) => "at_least",
            (TotalKind::AtLeast, true) => "atLeast",
            (TotalKind::Estimated, _) => "estimated",
        }
    }
}

/// The rows of a listing, as a page reports them when its request asked for a count
/// ([`PageRequest::count`](crate::PageRequest::count)): how many, what kind of number that is,
/// and, for an estimate, about which page of how many this one is.
///
/// In a page's JSON it is `"total"`, left out when no count was asked for:
///
/// ```
/// use keyset_runtime::{Page, TotalCount, TotalKind};
///
/// let mut page = Page::new(vec![1, 2], Some("AQ".to_owned()), None);
/// assert_eq!(
///     serde_json::to_string(&page).unwrap(),
///     r#"{"items":[1,2],"next_cursor":"AQ","prev_cursor":null}"#,
/// );
/// page.total = Some(TotalCount { kind: TotalKind::AtLeast, count: 1_000, page: None, pages: None });
/// assert_eq!(
///     serde_json::to_string(&page).unwrap(),
///     r#"{"items":[1,2],"next_cursor":"AQ","prev_cursor":null,"total":{"kind":"at_least","count":1000}}"#,
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "async-graphql", derive(async_graphql::SimpleObject))]
pub struct TotalCount {
    /// What kind of number [`count`](Self::count) is.
    pub kind: TotalKind,
    /// The rows of the listing (with its filters, among its set), whatever the page.
    pub count: u64,
    /// For an estimate, about which page this is, counting from 1, where the request says:
    /// 1 for the first page, `n` for page `n` ([`PageRequest::page_number`]), the last of
    /// [`pages`](Self::pages) for the last page. `None` for a page after or before a cursor,
    /// whose rows before it would take a second estimate (not made: see the guide), and for
    /// counts that are not estimates.
    ///
    /// [`PageRequest::page_number`]: crate::PageRequest::page_number
    pub page: Option<u64>,
    /// For an estimate, about how many pages of the page's size the listing has: the estimate
    /// divided by the limit, rounded up. `None` for counts that are not estimates.
    pub pages: Option<u64>,
}

impl TotalCount {
    /// A count of `kind`, without a position.
    pub(crate) fn new(kind: TotalKind, count: u64) -> Self {
        TotalCount { kind, count, page: None, pages: None }
    }

    /// Serializes the count, its kind named as [`TotalKind::name`] says.
    pub(crate) fn serialize_cased<S: Serializer>(
        &self,
        camel_case: bool,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let fields = 2 + usize::from(self.page.is_some()) + usize::from(self.pages.is_some());
        let mut total = serializer.serialize_struct("TotalCount", fields)?;
        total.serialize_field("kind", self.kind.name(camel_case))?;
        total.serialize_field("count", &self.count)?;
        match self.page {
            Some(page) => total.serialize_field("page", &page)?,
            None => total.skip_field("page")?,
        }
        match self.pages {
            Some(pages) => total.serialize_field("pages", &pages)?,
            None => total.skip_field("pages")?,
        }
        total.end()
    }
}

/// `{"kind": "exact" | "at_least" | "estimated", "count": n}`, with `"page"` and `"pages"` for
/// an estimate.
impl Serialize for TotalCount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_cased(false, serializer)
    }
}
