//! `#[keyset(prefix(..))]` through the writer: its indexes are written with the orders' own,
//! declaring one later writes a migration of its indexes alone, and one every order sorts by is
//! refused like any other mistake, writing nothing.

use super::*;

const FEED: &str = r#"
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = posts)]
    #[keyset(order(top: score desc, id desc))]
    pub struct Post {
        #[sort(desc)] created_at: NaiveDateTime,
        #[sort(desc)] #[tiebreaker] id: i64,
        score: i32,
    }
"#;

/// `FEED` with `attribute` on the struct.
fn with(attribute: &str) -> String {
    FEED.replace("pub struct Post", &format!("{attribute}\n    pub struct Post"))
}

#[test]
fn a_prefix_writes_an_index_per_order() {
    let scratch = Scratch::new("prefix");
    scratch.model(&with("#[keyset(prefix(author_id))]"));
    let written = scratch.migrations(Backend::Postgres).write().unwrap().folders;
    assert_eq!(written.len(), 1);
    assert_eq!(
        read(&written[0].join("up.sql")).lines().skip(1).collect::<Vec<_>>(),
        [
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_score_desc_id_desc" ON "posts" ("author_id" ASC, "score" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc" ON "posts" ("created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_score_desc_id_desc" ON "posts" ("score" DESC, "id" DESC);"#,
        ]
    );
    let down = read(&written[0].join("down.sql"));
    assert!(
        down.contains(r#"DROP INDEX IF EXISTS "posts_keyset_author_id_asc_score_desc_id_desc";"#),
        "{down}"
    );
    scratch.migrations(Backend::Postgres).check().unwrap();
}

#[test]
fn a_prefix_declared_later_adds_its_indexes_alone() {
    let scratch = Scratch::new("prefix-later");
    scratch.model(FEED);
    let migrations = scratch.migrations(Backend::Mysql);
    assert_eq!(migrations.write().unwrap().folders.len(), 1);

    scratch.model(&with("#[keyset(prefix(tenant_id))]"));
    let err = migrations.check().unwrap_err().to_string();
    assert!(
        err.contains("+ CREATE INDEX `posts_keyset_tenant_id_asc_score_desc_id_desc`"),
        "{err}"
    );
    let second = migrations.write().unwrap().folders;
    assert_eq!(second.len(), 1);
    assert_eq!(
        read(&second[0].join("up.sql")).lines().skip(1).collect::<Vec<_>>(),
        [
            "CREATE INDEX `posts_keyset_tenant_id_asc_created_at_desc_id_desc` ON `posts` (`tenant_id` ASC, `created_at` DESC, `id` DESC);",
            "CREATE INDEX `posts_keyset_tenant_id_asc_score_desc_id_desc` ON `posts` (`tenant_id` ASC, `score` DESC, `id` DESC);",
        ]
    );
    migrations.check().unwrap();
}

/// `prefix(id)` on a model whose every order ends with `id`: refused, and nothing written.
#[test]
fn a_prefix_every_order_sorts_by_writes_nothing() {
    let scratch = Scratch::new("prefix-refused");
    scratch.model(&with("#[keyset(prefix(id))]"));
    let err = scratch.migrations(Backend::Sqlite).write().unwrap_err().to_string();
    assert!(err.contains("`id` is a sort key of every order of `Post`"), "{err}");
    assert_eq!(scratch.folders(), ["2024-01-01-000000_create_tables"], "nothing written");
}
