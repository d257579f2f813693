//! Every form of `#[derive(Keyset)]` that the compile-fail fixtures (`tests/ui`) do not reject
//! compiles and pages correctly: the forms the behaviour suites do not already walk (a string
//! `column_name`, a raw identifier, a table path, composite and unique tiebreakers) and a model
//! that carries Diesel's other keys, which the derive must leave to Diesel.
//!
//! Self-contained on purpose: its own tables and an in-memory SQLite database, so that it tests
//! the derive and nothing else.

use diesel::prelude::*;
use keyset_runtime::{
    CursorError, Error, Keyset, Orders, Page, PageQuery, PageRequest, Paginate, SortDirection,
};

mod schema {
    diesel::table! {
        posts (id) {
            id -> BigInt,
            created -> BigInt,
            score -> Integer,
            r#type -> Text,
            title -> Text,
            note -> Nullable<Text>,
        }
    }

    diesel::table! {
        memberships (team_id, user_id) {
            team_id -> Integer,
            user_id -> Integer,
            joined -> BigInt,
        }
    }

    diesel::table! {
        people (id) {
            id -> BigInt,
            email -> Text,
        }
    }
}

use schema::{memberships, people, posts};

#[path = "forms/prefix.rs"]
mod prefix;

const DDL: &[&str] = &[
    "CREATE TABLE posts (id BIGINT PRIMARY KEY NOT NULL, created BIGINT NOT NULL, \
     score INTEGER NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL, note TEXT)",
    "CREATE TABLE memberships (team_id INTEGER NOT NULL, user_id INTEGER NOT NULL, \
     joined BIGINT NOT NULL, PRIMARY KEY (team_id, user_id))",
    "CREATE TABLE people (id BIGINT PRIMARY KEY NOT NULL, email TEXT NOT NULL UNIQUE)",
];

/// `column_name` as a string (here a keyword column) and as an identifier, a renamed tiebreaker,
/// and the table named by a path.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = schema::posts)]
struct Renamed {
    #[sort(asc)]
    #[diesel(column_name = "type")]
    kind: String,
    #[sort(desc)]
    #[diesel(column_name = created)]
    published: i64,
    #[sort(desc)]
    #[tiebreaker]
    #[diesel(column_name = "id")]
    post_id: i64,
}

/// A title that is stored as text but is not a `String`: read and written through Diesel's
/// `deserialize_as` / `serialize_as`.
#[derive(Debug, Clone, PartialEq)]
struct Title(String);

impl From<String> for Title {
    fn from(text: String) -> Self {
        Title(text)
    }
}

impl From<Title> for String {
    fn from(title: Title) -> Self {
        title.0
    }
}

/// Diesel's other keys on the struct and on non-key fields: the derive reads only `table_name`
/// and `column_name`, and leaves the rest to Diesel's derives beside it. One key is a raw
/// identifier.
#[derive(Queryable, Selectable, Insertable, AsChangeset, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts, check_for_backend(diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_null = true)]
struct Tolerant {
    #[sort(desc)]
    score: i32,
    #[sort(asc)]
    r#type: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
    created: i64,
    #[diesel(deserialize_as = String, serialize_as = String)]
    title: Title,
    note: Option<String>,
}

/// A composite primary key as the tiebreaker, in the key's order, with mixed directions.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = memberships)]
struct Membership {
    #[sort(desc)]
    joined: i64,
    #[sort(asc)]
    #[tiebreaker]
    team_id: i32,
    #[sort(desc)]
    #[tiebreaker]
    user_id: i32,
}

/// A unique column that is not the primary key, vouched for with `#[tiebreaker(unique)]`.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = people)]
struct Person {
    #[sort(desc)]
    #[tiebreaker(unique)]
    email: String,
    id: i64,
}

/// Named orders only, on a nullable key too: `paginate` pages in the first of them.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(order(hot: score desc, created desc, id desc), order(noted: note asc nulls last, id asc))]
struct Named {
    #[tiebreaker]
    id: i64,
    score: i32,
    created: i64,
    note: Option<String>,
}

/// A field order and named orders on one model, under a listing name of its own.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(listing = "admin", order(hot: score desc, created desc, id desc))]
#[keyset(order(kind: r#type asc, id desc))]
struct Admin {
    #[sort(desc)]
    created: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
    #[diesel(column_name = "type")]
    r#type: String,
}

/// [`Admin`]'s orders without its listing name.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(order(hot: score desc, created desc, id desc))]
struct Public {
    #[sort(desc)]
    created: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

/// 40 posts, 20 memberships and 15 people, with ties on every leading key.
fn seeded() -> SqliteConnection {
    let mut conn = SqliteConnection::establish(":memory:").expect("open in-memory SQLite");
    for statement in DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
    }
    let posts: Vec<Tolerant> = (1..=40)
        .map(|id| Tolerant {
            score: (id % 3) as i32,
            id,
            created: id % 4,
            r#type: ["a", "b"][(id % 2) as usize].to_owned(),
            title: Title(format!("post {id}")),
            note: (id % 5 == 0).then(|| "note".to_owned()),
        })
        .collect();
    diesel::insert_into(posts::table).values(posts).execute(&mut conn).expect("insert posts");
    let members: Vec<_> = (0..20)
        .map(|i| {
            (
                memberships::team_id.eq(i % 3),
                memberships::user_id.eq(i / 3),
                memberships::joined.eq(i64::from(i % 2)),
            )
        })
        .collect();
    diesel::insert_into(memberships::table)
        .values(members)
        .execute(&mut conn)
        .expect("insert memberships");
    let people: Vec<_> = (1..=15)
        .map(|id: i64| {
            (people::id.eq(id), people::email.eq(format!("{}@example.org", (id * 7) % 15)))
        })
        .collect();
    diesel::insert_into(people::table).values(people).execute(&mut conn).expect("insert people");
    conn
}

/// Every row of `query()`, following `next_cursor` from the first page, or `prev_cursor` from the
/// last page when `backward` (then turned back into the model's order).
fn walk<Q>(
    conn: &mut SqliteConnection,
    query: impl Fn() -> Q,
    limit: u32,
    backward: bool,
) -> Vec<Q::Model>
where
    Q: PageQuery<'static, SqliteConnection, Item = <Q as keyset_runtime::Paginate>::Model>,
{
    let mut pages = Vec::new();
    let mut request = if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
    for _ in 0..1_000 {
        let page =
            query().paginate(&request).expect("valid request").load_page(conn).expect("page loads");
        let token = if backward { page.prev_cursor.clone() } else { page.next_cursor.clone() };
        pages.push(page.items);
        match token {
            Some(token) if backward => request = PageRequest::before(token, limit),
            Some(token) => request = PageRequest::after(token, limit),
            None if backward => return pages.into_iter().rev().flatten().collect(),
            None => return pages.into_iter().flatten().collect(),
        }
    }
    panic!("the walk did not end after 1000 pages")
}

/// Walks in both directions at a few page sizes and compares with `expected`.
fn check<Q>(conn: &mut SqliteConnection, expected: &[Q::Model], query: impl Fn() -> Q + Copy)
where
    Q: PageQuery<'static, SqliteConnection, Item = <Q as keyset_runtime::Paginate>::Model>,
    Q::Model: std::fmt::Debug + PartialEq,
{
    assert!(expected.len() > 10, "the oracle returned rows");
    for limit in [1, 3, 7, 100] {
        assert_eq!(walk(conn, query, limit, false), expected, "forward, limit {limit}");
        assert_eq!(walk(conn, query, limit, true), expected, "backward, limit {limit}");
    }
}

#[test]
fn renamed_columns_and_table_path() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::r#type.asc(), posts::created.desc(), posts::id.desc()))
        .select(Renamed::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &expected, || posts::table.select(Renamed::as_select()));
    assert_eq!(Renamed::SORT_ORDER, "posts: type ASC, created DESC, id DESC");
}

#[test]
fn other_diesel_keys_are_left_to_diesel() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::score.desc(), posts::r#type.asc(), posts::id.asc()))
        .select(Tolerant::as_select())
        .load(&mut conn)
        .unwrap();
    assert_eq!(expected[0].title, Title(format!("post {}", expected[0].id)), "deserialize_as ran");
    check(&mut conn, &expected, || posts::table.select(Tolerant::as_select()));

    // `AsChangeset` with `treat_none_as_null` writes NULL for `None`.
    let mut noted = expected.iter().find(|post| post.note.is_some()).unwrap().clone();
    noted.note = None;
    diesel::update(posts::table.find(noted.id)).set(noted.clone()).execute(&mut conn).unwrap();
    let note: Option<String> =
        posts::table.find(noted.id).select(posts::note).first(&mut conn).unwrap();
    assert_eq!(note, None);
}

#[test]
fn composite_primary_key_tiebreaker_in_mixed_directions() {
    let mut conn = seeded();
    let expected = memberships::table
        .order((
            memberships::joined.desc(),
            memberships::team_id.asc(),
            memberships::user_id.desc(),
        ))
        .select(Membership::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &expected, || memberships::table.select(Membership::as_select()));
}

#[test]
fn unique_column_tiebreaker() {
    let mut conn = seeded();
    let expected = people::table
        .order(people::email.desc())
        .select(Person::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &expected, || people::table.select(Person::as_select()));
}

/// The posts as `M`, typed: no connection in sight to infer the backend from.
type Listing<M> =
    diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<M, diesel::sqlite::Sqlite>>;

/// The request for the page after `page`, of 5 rows.
fn after<T>(page: Page<T>) -> PageRequest {
    PageRequest::after(page.next_cursor.unwrap(), 5)
}

/// Every row of `query()` in `order` and `dir`, forward from the first page.
fn walk_by<Q, O>(
    conn: &mut SqliteConnection,
    query: impl Fn() -> Q,
    (order, dir): (O, Option<SortDirection>),
    limit: u32,
) -> Vec<Q::Model>
where
    Q: PageQuery<'static, SqliteConnection, O, Item = <Q as keyset_runtime::Paginate>::Model>,
    O: Orders<Row = Q::Model>,
{
    let (mut rows, mut request) = (Vec::new(), PageRequest::first(limit));
    for _ in 0..1_000 {
        let page = query().paginate_by(order, dir, &request).unwrap().load_page(conn).unwrap();
        rows.extend(page.items);
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, limit),
            None => return rows,
        }
    }
    panic!("the walk did not end after 1000 pages")
}

#[test]
fn named_orders_only() {
    let mut conn = seeded();
    let hot = posts::table
        .order((posts::score.desc(), posts::created.desc(), posts::id.desc()))
        .select(Named::as_select())
        .load(&mut conn)
        .unwrap();
    // `paginate` pages in `hot`, as declared.
    check(&mut conn, &hot, || posts::table.select(Named::as_select()));
    assert_eq!(Named::SORT_ORDER, "posts: score DESC, created DESC, id DESC");
    let query = || posts::table.select(Named::as_select());
    assert_eq!(walk_by(&mut conn, query, (NamedOrder::Hot, None), 7), hot);
    let mut reversed = hot.clone();
    reversed.reverse();
    let asc = Some(SortDirection::Asc);
    assert_eq!(walk_by(&mut conn, query, (NamedOrder::Hot, asc), 7), reversed);
    let mut noted = hot;
    noted.sort_by(|a, b| (a.note.is_none(), &a.note, a.id).cmp(&(b.note.is_none(), &b.note, b.id)));
    assert_eq!(walk_by(&mut conn, query, (NamedOrder::Noted, None), 3), noted);
}

#[test]
fn a_field_order_and_named_orders_under_a_listing_name() {
    let mut conn = seeded();
    assert_eq!(Admin::SORT_ORDER, "posts[admin]: created DESC, id DESC");
    assert_eq!(Public::SORT_ORDER, "posts: created DESC, id DESC");
    let newest = posts::table
        .order((posts::created.desc(), posts::id.desc()))
        .select(Admin::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &newest, || posts::table.select(Admin::as_select()));
    let kind = posts::table
        .order((posts::r#type.asc(), posts::id.desc()))
        .select(Admin::as_select())
        .load(&mut conn)
        .unwrap();
    let query = || -> Listing<Admin> { posts::table.select(Admin::as_select()) };
    assert_eq!(walk_by(&mut conn, query, (AdminOrder::Kind, None), 4), kind);
    assert_eq!(AdminOrder::ALL.map(AdminOrder::name), ["hot", "kind"]);

    // The same orders without the listing name are another listing: neither takes the other's
    // tokens, for the field order nor for a named one.
    let first = PageRequest::first(5);
    let admin = after(query().paginate(&first).unwrap().load_page(&mut conn).unwrap());
    let public = || -> Listing<Public> { posts::table.select(Public::as_select()) };
    let public_token = after(public().paginate(&first).unwrap().load_page(&mut conn).unwrap());
    let refused = public().paginate(&admin).err().unwrap();
    assert!(matches!(refused, Error::Cursor(CursorError::ForeignSortOrder)), "{refused:?}");
    let refused = query().paginate(&public_token).err().unwrap();
    assert!(matches!(refused, Error::Cursor(CursorError::ForeignSortOrder)), "{refused:?}");

    let hot = query().paginate_by(AdminOrder::Hot, None, &first).unwrap();
    let admin_hot = after(hot.load_page(&mut conn).unwrap());
    let hot = public().paginate_by(PublicOrder::Hot, None, &first).unwrap();
    let public_hot = after(hot.load_page(&mut conn).unwrap());
    assert!(public().paginate_by(PublicOrder::Hot, None, &admin_hot).is_err());
    assert!(query().paginate_by(AdminOrder::Hot, None, &public_hot).is_err());
    // Each is accepted where it was issued.
    assert!(query().paginate_by(AdminOrder::Hot, None, &admin_hot).is_ok());
    assert!(public().paginate_by(PublicOrder::Hot, None, &public_hot).is_ok());
}

/// `RenamedCursor` and `AdminOrder` are aliases of types with hidden names, so that a user type
/// of the same name is one error (tests/ui/generated-name-taken.rs). Through them the types are
/// built, matched and given impls as before, and `Debug` writes the name users write.
#[test]
fn generated_names_are_the_types_users_write() {
    let cursor = RenamedCursor { kind: "a".to_owned(), published: 3, post_id: 7 };
    let RenamedCursor { kind, published, post_id } = cursor.clone();
    assert_eq!((kind.as_str(), published, post_id), ("a", 3, 7));
    assert_eq!(cursor, elsewhere::cursor());
    assert_eq!(cursor.label(), "a/7");
    assert_eq!(format!("{cursor:?}"), r#"RenamedCursor { kind: "a", published: 3, post_id: 7 }"#);
    let cursor = TolerantCursor { score: 1, r#type: "b".to_owned(), id: 2 };
    assert_eq!(format!("{cursor:?}"), r#"TolerantCursor { score: 1, type: "b", id: 2 }"#);

    let order: AdminOrder = "kind".parse().unwrap();
    assert!(matches!(order, AdminOrder::Kind));
    assert_eq!(format!("{order:?} {order}"), "Kind kind");
    assert_eq!(AdminOrder::default(), AdminOrder::Hot);
    assert_eq!(serde_json::to_string(&order).unwrap(), r#""kind""#);
    assert_eq!(serde_json::from_str::<AdminOrder>(r#""hot""#).unwrap(), AdminOrder::Hot);
}

impl RenamedCursor {
    fn label(&self) -> String {
        format!("{}/{}", self.kind, self.post_id)
    }
}

mod elsewhere {
    use super::*;

    pub fn cursor() -> RenamedCursor {
        RenamedCursor { kind: "a".to_owned(), published: 3, post_id: 7 }
    }
}

/// A model declared in a function, with a key of a type declared there too: the generated
/// types and their aliases are items of the function's block.
#[test]
fn a_model_declared_in_a_function() {
    type Score = i32;

    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = posts)]
    #[keyset(order(newest: created desc, id desc))]
    struct Local {
        #[sort(desc)]
        score: Score,
        #[sort(desc)]
        #[tiebreaker]
        id: i64,
        created: i64,
    }

    let cursor = LocalCursor { score: 2, id: 3 };
    assert_eq!(format!("{cursor:?}"), "LocalCursor { score: 2, id: 3 }");
    let mut conn = seeded();
    let top = posts::table
        .order((posts::score.desc(), posts::id.desc()))
        .select(Local::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &top, || posts::table.select(Local::as_select()));
    let newest = posts::table
        .order((posts::created.desc(), posts::id.desc()))
        .select(Local::as_select())
        .load(&mut conn)
        .unwrap();
    let query = || posts::table.select(Local::as_select());
    assert_eq!(walk_by(&mut conn, query, (LocalOrder::Newest, None), 7), newest);
}
