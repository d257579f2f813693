//! The wire form of a [`PageRequest`]: its fields as a query string or a JSON body hands them
//! over, before the rules between them are checked.
//!
//! A query string is untyped. Read by itself (`serde_urlencoded`, axum's `Query<PageRequest>`)
//! its values are parsed into the field's type, but inside a `#[serde(flatten)]` struct, which
//! serde buffers untyped, every value arrives as a string: so `limit` and `last` also accept their
//! text form (`"20"`, `"true"`), as well as a JSON number and boolean.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use super::{Limit, PageRequest, RequestError, RequestedPosition};
use crate::count::Count;

/// The wire form of a request, before its rules are checked.
#[derive(Deserialize)]
pub(super) struct RawPageRequest {
    after: Option<String>,
    before: Option<String>,
    #[serde(default, deserialize_with = "limit")]
    limit: Option<u32>,
    #[serde(default, deserialize_with = "flag")]
    last: bool,
    #[serde(default)]
    count: Option<Count>,
    /// The leading key's value a page starts at (inclusive), as text.
    from: Option<String>,
    /// The leading key's value a page starts strictly past, as text.
    past: Option<String>,
}

impl TryFrom<RawPageRequest> for PageRequest {
    type Error = RequestError;

    fn try_from(raw: RawPageRequest) -> Result<Self, RequestError> {
        Limit::new(raw.limit)?;
        let start = match (raw.from, raw.past) {
            (Some(_), Some(_)) => return Err(RequestError::StartWithPosition),
            (Some(value), None) => Some((value, true)),
            (None, Some(value)) => Some((value, false)),
            (None, None) => None,
        };
        if let Some((value, inclusive)) = start {
            if raw.after.is_some() || raw.before.is_some() || raw.last {
                return Err(RequestError::StartWithPosition);
            }
            let position = RequestedPosition::Start { values: vec![value], inclusive };
            return Ok(PageRequest { position, limit: raw.limit, scope: None, count: raw.count });
        }
        let position = match (raw.after, raw.before, raw.last) {
            (Some(_), Some(_), _) => return Err(RequestError::AfterAndBefore),
            (Some(_), None, true) | (None, Some(_), true) => {
                return Err(RequestError::LastWithCursor)
            }
            (Some(token), None, false) => RequestedPosition::After(token),
            (None, Some(token), false) => RequestedPosition::Before(token),
            (None, None, true) => RequestedPosition::Last,
            (None, None, false) => RequestedPosition::First,
        };
        Ok(PageRequest { position, limit: raw.limit, scope: None, count: raw.count })
    }
}

impl PageRequest {
    /// The request a query string's parameters give, read one by one elsewhere
    /// (`http/params.rs`), under the rules between them that the wire form checks: `cursors`
    /// are `after` and `before`, `start` is `from` and `past`.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn from_parts(
        (after, before): (Option<String>, Option<String>),
        (from, past): (Option<String>, Option<String>),
        limit: Option<u32>,
        last: bool,
        count: Option<Count>,
    ) -> Result<Self, RequestError> {
        PageRequest::try_from(RawPageRequest { after, before, limit, last, count, from, past })
    }
}

/// `limit`: a whole number of rows (0 is refused later, with its own error), as a number or as
/// text; `null` is no limit.
fn limit<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    struct Limit;

    impl<'de> Visitor<'de> for Limit {
        type Value = Option<u32>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("`limit` as a whole number of rows, e.g. `limit=20`")
        }

        fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
            let limit = u32::try_from(value);
            limit.map(Some).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(value), &self))
        }

        fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
            let limit = u32::try_from(value);
            limit.map(Some).map_err(|_| E::invalid_value(de::Unexpected::Signed(value), &self))
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
            let limit = value.parse();
            limit.map(Some).map_err(|_| E::invalid_value(de::Unexpected::Str(value), &self))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
            inner.deserialize_any(self)
        }
    }

    deserializer.deserialize_any(Limit)
}

/// `last`: `true` or `false`, as a boolean or as text.
fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct Flag;

    impl Visitor<'_> for Flag {
        type Value = bool;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("`last` as `true` or `false`, e.g. `last=true`")
        }

        fn visit_bool<E: de::Error>(self, value: bool) -> Result<bool, E> {
            Ok(value)
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<bool, E> {
            match value {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(E::invalid_value(de::Unexpected::Str(value), &self)),
            }
        }
    }

    deserializer.deserialize_any(Flag)
}
