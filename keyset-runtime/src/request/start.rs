//! Requests for a page that starts at values the client names, not at a token: "posts from
//! 1 March", "names from M".

use super::{PageRequest, RequestError, RequestedPosition};

impl PageRequest {
    /// The first `limit` rows at or past `values`, in the listing's order and direction: one
    /// value per leading key of the order, as text, read by each key's type
    /// ([`CursorValue::from_text`](crate::token::CursorValue::from_text): RFC 3339 or a date for
    /// timestamps, the type's own text form otherwise). Give the leading key alone ("from
    /// 1 March") or more of the keys, up to all of them. In `created_at DESC`,
    /// `starting_at(["2024-03-01"], 20)` is the newest 20 rows at or before that instant. From a
    /// query string: `from=2024-03-01` (the leading key). The page has `prev_cursor` and
    /// `next_cursor` as any page; one past the end is empty, with a `prev_cursor` to the last.
    ///
    /// A listing serves such a request only where it opts in
    /// ([`Paginated::allow_starts`](crate::Paginated::allow_starts)) and its tokens are not
    /// signed: otherwise it is refused, before any query, with
    /// [`RequestError::StartRefused`](crate::RequestError::StartRefused) (400). A value its
    /// key's type cannot read is refused the same way, naming the key
    /// ([`RequestError::InvalidParameter`](crate::RequestError::InvalidParameter)).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
    ///
    /// #[derive(Queryable, Selectable, Keyset, Debug)]
    /// struct Post {
    ///     #[sort(desc)]
    ///     score: i32,
    ///     #[sort(asc)]
    ///     #[tiebreaker]
    ///     id: i64,
    /// }
    ///
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 9), (2, 7), (3, 7), (4, 5), (5, 3)").execute(&mut conn).unwrap();
    /// let query = || posts::table.select(Post::as_select());
    /// let ids = |page: keyset_runtime::Page<Post>| page.items.iter().map(|post| post.id).collect::<Vec<_>>();
    ///
    /// // `?from=7`: scores of 7 and below, highest first.
    /// let from: PageRequest = serde_json::from_str(r#"{"from": "7", "limit": 2}"#)?;
    /// assert_eq!(from, PageRequest::starting_at(["7"], 2));
    /// let page = query().paginate(&from)?.allow_starts().load_page(&mut conn)?;
    /// assert_eq!(ids(page), [2, 3]);
    ///
    /// // Both keys: score 7 from id 3 on.
    /// let page = query().paginate(&PageRequest::starting_at(["7", "3"], 2))?.allow_starts().load_page(&mut conn)?;
    /// assert_eq!(ids(page), [3, 4]);
    ///
    /// // A listing that has not opted in refuses it: 400.
    /// let refused = query().paginate(&from)?.load_page(&mut conn).unwrap_err();
    /// assert!(refused.is_client_error());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn starting_at<S: Into<String>>(values: impl IntoIterator<Item = S>, limit: u32) -> Self {
        PageRequest::start(values, true, limit)
    }

    /// The first `limit` rows strictly past `values`: as [`starting_at`](Self::starting_at),
    /// without the rows equal to the values on the keys given. In `score DESC`,
    /// `starting_past(["7"], 20)` starts at the highest score below 7. From a query string:
    /// `past=7`. Past every key's value, it is the page after the row that has them.
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// let past: PageRequest = serde_json::from_str(r#"{"past": "7"}"#).unwrap();
    /// assert_eq!(past.start_values(), Some((&["7".to_owned()][..], false)));
    ///
    /// // A start is a position of its own: with a token, which one was meant is unclear.
    /// let both = serde_json::from_str::<PageRequest>(r#"{"past": "7", "after": "AQ"}"#);
    /// assert!(both.is_err());
    /// ```
    pub fn starting_past<S: Into<String>>(values: impl IntoIterator<Item = S>, limit: u32) -> Self {
        PageRequest::start(values, false, limit)
    }

    fn start<S: Into<String>>(
        values: impl IntoIterator<Item = S>,
        inclusive: bool,
        limit: u32,
    ) -> Self {
        let values = values.into_iter().map(Into::into).collect();
        PageRequest {
            position: RequestedPosition::Start { values, inclusive },
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// The values the request starts at, as text, and whether the rows equal to them are kept
    /// (`from`) or not (`past`); `None` unless it starts at values.
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// let from = PageRequest::starting_at(["2024-03-01"], 20);
    /// assert_eq!(from.start_values(), Some((&["2024-03-01".to_owned()][..], true)));
    /// assert_eq!(PageRequest::first(20).start_values(), None);
    /// ```
    pub fn start_values(&self) -> Option<(&[String], bool)> {
        match &self.position {
            RequestedPosition::Start { values, inclusive } => Some((values, *inclusive)),
            _ => None,
        }
    }
}

/// Whether a page starts at values its request named, and whether the listing serves that.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Starts {
    /// The request named values to start at.
    pub(crate) asked: bool,
    /// The listing opted in ([`Paginated::allow_starts`](crate::Paginated::allow_starts)).
    pub(crate) allowed: bool,
    /// The listing's tokens are signed or encrypted: starts are refused whatever it allows.
    pub(crate) signed: bool,
}

impl Starts {
    /// Refuses a start the listing does not serve: the client's error.
    pub(crate) fn check(self) -> Result<(), RequestError> {
        match self {
            Starts { asked: false, .. } => Ok(()),
            Starts { signed: true, .. } => Err(RequestError::StartRefused { signed: true }),
            Starts { allowed: false, .. } => Err(RequestError::StartRefused { signed: false }),
            Starts { .. } => Ok(()),
        }
    }
}
