//! Named orders, as a client chooses them: the [`Orders`] a generated enum implements, the
//! [`SortDirection`] beside it, and how both read a client's words ([`ParseOrderError`]).

use std::fmt;
use std::str::FromStr;

use super::list::OrderSet;

/// The direction a client chose for an order: that of the order's first key. The other
/// direction is the exact reverse of every key and NULL placement, which the same index serves
/// backwards. Reads `asc` and `desc` from a query string, in lower case as written there.
///
/// ```
/// use keyset_runtime::SortDirection;
///
/// assert_eq!("desc".parse::<SortDirection>(), Ok(SortDirection::Desc));
/// assert_eq!(SortDirection::Asc.to_string(), "asc");
/// let refused = "up".parse::<SortDirection>().unwrap_err();
/// assert_eq!(refused.to_string(), "unknown sort direction `up`: expected `asc` or `desc`");
/// assert_eq!(serde_json::from_str::<SortDirection>(r#""asc""#).unwrap(), SortDirection::Asc);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortDirection {
    /// Ascending: smallest first.
    Asc,
    /// Descending: largest first.
    Desc,
}

impl SortDirection {
    /// Both, as a client writes them.
    pub const ALL: [SortDirection; 2] = [SortDirection::Asc, SortDirection::Desc];

    /// `asc` or `desc`.
    pub const fn name(self) -> &'static str {
        match self {
            SortDirection::Asc => "asc",
            SortDirection::Desc => "desc",
        }
    }
}

impl fmt::Display for SortDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SortDirection {
    type Err = ParseOrderError;

    fn from_str(name: &str) -> Result<Self, ParseOrderError> {
        match name {
            "asc" => Ok(SortDirection::Asc),
            "desc" => Ok(SortDirection::Desc),
            _ => Err(ParseOrderError {
                kind: "sort direction",
                found: name.into(),
                expected: &["asc", "desc"],
            }),
        }
    }
}

/// A name that is no sort order (or direction) of the listing: what `FromStr` of a generated
/// order enum and of [`SortDirection`] return. Its message lists the names there are, for a 400
/// answer.
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
/// }
///
/// let refused = "hot".parse::<PostOrder>().unwrap_err();
/// assert_eq!(refused.to_string(), "unknown sort order `hot`: expected `new` or `top`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOrderError {
    kind: &'static str,
    found: String,
    expected: &'static [&'static str],
}

impl ParseOrderError {
    /// The names it expected, as a client writes them.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }
}

impl fmt::Display for ParseOrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`: expected ", self.kind, self.found)?;
        for (index, name) in self.expected.iter().enumerate() {
            let last = index + 1 == self.expected.len();
            let separator = match index {
                0 => "",
                _ if last => " or ",
                _ => ", ",
            };
            write!(f, "{separator}`{name}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseOrderError {}

/// The named sort orders of a model, as the enum `#[derive(Keyset)]` generates for
/// `#[keyset(order(..))]` (`PostOrder` for `Post`), which implements it. The enum's variants are
/// the orders' names in UpperCamelCase; it reads and writes the names as declared (`?sort=top`:
/// `FromStr`, `Display`, serde), defaults to the first order, and lists its variants in `ALL`
/// (for docs and OpenAPI). Page with the chosen one with
/// [`Paginate::paginate_by`](crate::Paginate::paginate_by).
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::{Keyset, Orders, SortDirection};
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer, title -> Text } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc), order(title: title asc, id asc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
///     title: String,
/// }
///
/// assert_eq!(PostOrder::default(), PostOrder::New);
/// assert_eq!("top".parse::<PostOrder>(), Ok(PostOrder::Top));
/// assert_eq!(PostOrder::Title.to_string(), "title");
/// assert_eq!(PostOrder::ALL.map(PostOrder::name), ["new", "top", "title"]);
/// assert_eq!(PostOrder::Title.direction(), SortDirection::Asc); // its first key's
/// assert_eq!(serde_json::from_str::<PostOrder>(r#""top""#).unwrap(), PostOrder::Top);
/// ```
pub trait Orders:
    OrderSet + OrdersOf<<Self as OrderSet>::Row, Set = Self> + Copy + 'static
{
    /// The order's name, as a client writes it.
    fn name(self) -> &'static str;
    /// The direction of the order's first key, as declared.
    fn direction(self) -> SortDirection;
    /// The order's position among the declared ones, from 0.
    #[doc(hidden)]
    fn index(self) -> usize;
}

/// An order enum of model `M`: what [`Paginate::paginate_by`](crate::Paginate::paginate_by)
/// takes, whose orders are the model's (`Set` is the enum itself). Implemented by
/// `#[derive(Keyset)]` for each order enum, and implied by [`Orders`] (so that a helper generic
/// over `O: Orders<Row = Post>` pages too), but not implemented for every type that is one: a
/// type that is no order enum of `M` (another model's, a string) has no impl at all, and is one
/// error, this one.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`paginate_by` takes an order of `{M}`: a variant of its order enum",
    label = "not one of `{M}`'s orders",
    note = "pass a variant of `{M}Order` (unless `#[keyset(order_enum = ..)]` names the enum otherwise), the orders `{M}`'s `#[keyset(order(..))]` declares; a client's `?sort=` name becomes one with `.parse::<{M}Order>()`",
    note = "a query pages in the orders of the model it selects first: to page another model's rows, select that model with `.select(Model::as_select())`"
)]
pub trait OrdersOf<M> {
    /// The enum itself, known to be `M`'s.
    type Set: Orders<Row = M>;
    /// The order, as a value of [`Set`](Self::Set).
    fn order(self) -> Self::Set;
}

/// The position in the order list of `order` in direction `dir` (`None`: as declared): order `i`
/// as declared is `2i`, reversed `2i + 1`.
pub(crate) fn list_index<O: Orders>(order: O, dir: Option<SortDirection>) -> usize {
    let reversed = dir.is_some_and(|dir| dir != order.direction());
    order.index() * 2 + usize::from(reversed)
}

/// `FromStr` of a generated order enum: the variant of `all` named `name`.
#[doc(hidden)]
pub fn parse_order<O: Orders>(
    all: &[O],
    names: &'static [&'static str],
    name: &str,
) -> Result<O, ParseOrderError> {
    match all.iter().find(|order| order.name() == name) {
        Some(order) => Ok(*order),
        None => Err(ParseOrderError { kind: "sort order", found: name.into(), expected: names }),
    }
}

/// `Deserialize` of a generated order enum: the variant of `all` named by the string, or serde's
/// "unknown variant" error listing the names.
#[doc(hidden)]
pub fn deserialize_order<'de, O: Orders, D: serde::Deserializer<'de>>(
    all: &'static [O],
    names: &'static [&'static str],
    deserializer: D,
) -> Result<O, D::Error> {
    struct Name<O: 'static>(&'static [O], &'static [&'static str]);

    impl<'de, O: Orders> serde::de::Visitor<'de> for Name<O> {
        type Value = O;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the name of a sort order")
        }

        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<O, E> {
            match self.0.iter().find(|order| order.name() == name) {
                Some(order) => Ok(*order),
                None => Err(E::unknown_variant(name, self.1)),
            }
        }
    }

    deserializer.deserialize_str(Name(all, names))
}
