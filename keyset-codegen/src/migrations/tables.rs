//! Which tables a migration creates, read from its `up.sql`, so that an index migration is never
//! ordered before the migration that creates its table.
//!
//! The scanner reads SQL the way the engines tokenize it, only as far as this needs: comments,
//! string literals and PostgreSQL dollar-quoted bodies are skipped (a `CREATE TABLE` inside a
//! function body or a comment creates nothing), identifiers are words or quoted in `"..."`,
//! `` `..` `` or `[..]`. Every form of `CREATE TABLE` counts: `CREATE [OR REPLACE] [UNLOGGED]
//! TABLE [IF NOT EXISTS] [schema.]name`; temporary tables do not, since they vanish with the
//! session that ran the migration.

/// One token: a bare word, a quoted identifier, or a punctuation character.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Punct(char),
}

impl Token {
    fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Word(w) if w.eq_ignore_ascii_case(word))
    }

    fn identifier(&self) -> Option<&str> {
        match self {
            Token::Word(name) | Token::Quoted(name) => Some(name),
            Token::Punct(_) => None,
        }
    }
}

/// The tables `sql` creates, in order, each named by the last part of its (possibly
/// schema-qualified) name.
pub(super) fn created_tables(sql: &str) -> Vec<String> {
    let tokens = tokenize(sql);
    let mut tables = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].is_word("CREATE") {
            if let Some((table, next)) = create_table(&tokens, i + 1) {
                tables.push(table);
                i = next;
                continue;
            }
        }
        i += 1;
    }
    tables
}

/// After `CREATE` at `i`: the table a `CREATE .. TABLE` statement creates, and where it ends.
fn create_table(tokens: &[Token], mut i: usize) -> Option<(String, usize)> {
    let at = |i: usize, word: &str| tokens.get(i).is_some_and(|t| t.is_word(word));
    if at(i, "OR") && at(i + 1, "REPLACE") {
        i += 2;
    }
    if at(i, "GLOBAL") || at(i, "LOCAL") {
        i += 1;
    }
    if at(i, "TEMPORARY") || at(i, "TEMP") {
        return None;
    }
    if at(i, "UNLOGGED") {
        i += 1;
    }
    if !at(i, "TABLE") {
        return None;
    }
    i += 1;
    if at(i, "IF") && at(i + 1, "NOT") && at(i + 2, "EXISTS") {
        i += 3;
    }
    let mut name = tokens.get(i)?.identifier()?;
    i += 1;
    while tokens.get(i) == Some(&Token::Punct('.')) {
        name = tokens.get(i + 1)?.identifier()?;
        i += 2;
    }
    Some((name.to_owned(), i))
}

fn tokenize(sql: &str) -> Vec<Token> {
    let chars: Vec<char> = sql.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if (c == '-' && next == Some('-')) || c == '#' {
            // `#` starts a comment on MySQL and MariaDB; nowhere else is it valid outside quotes.
            i = find(&chars, i, &['\n']).map_or(chars.len(), |end| end + 1);
        } else if c == '/' && next == Some('*') {
            i = find_seq(&chars, i + 2, "*/").map_or(chars.len(), |end| end + 2);
        } else if c == '\'' {
            i = skip_quoted(&chars, i, '\'').1;
        } else if c == '"' || c == '`' {
            let (name, end) = skip_quoted(&chars, i, c);
            tokens.push(Token::Quoted(name));
            i = end;
        } else if c == '[' {
            let end = find(&chars, i + 1, &[']']).unwrap_or(chars.len());
            tokens.push(Token::Quoted(chars[i + 1..end].iter().collect()));
            i = end + 1;
        } else if c == '$' {
            i = skip_dollar_quoted(&chars, i);
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            tokens.push(Token::Word(chars[start..i].iter().collect()));
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

/// A quoted string or identifier starting at `start`: its content (a doubled quote stands for
/// one) and the index after its closing quote.
fn skip_quoted(chars: &[char], start: usize, quote: char) -> (String, usize) {
    let mut content = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        if chars[i] == quote {
            if chars.get(i + 1) == Some(&quote) {
                content.push(quote);
                i += 2;
                continue;
            }
            return (content, i + 1);
        }
        // MySQL's backslash escapes in string literals.
        if quote == '\'' && chars[i] == '\\' {
            i += 1;
        }
        if let Some(&c) = chars.get(i) {
            content.push(c);
        }
        i += 1;
    }
    (content, chars.len())
}

/// PostgreSQL's `$tag$ .. $tag$` (or `$$ .. $$`) body starting at `start`, or a lone `$`
/// (a parameter such as `$1`): the index after it.
fn skip_dollar_quoted(chars: &[char], start: usize) -> usize {
    let mut end = start + 1;
    while end < chars.len() && (chars[end].is_alphanumeric() || chars[end] == '_') {
        end += 1;
    }
    if chars.get(end) != Some(&'$') || chars.get(start + 1).is_some_and(|c| c.is_ascii_digit()) {
        return start + 1;
    }
    let tag: String = chars[start..=end].iter().collect();
    find_seq(chars, end + 1, &tag).map_or(chars.len(), |close| close + tag.chars().count())
}

fn find(chars: &[char], from: usize, any: &[char]) -> Option<usize> {
    (from..chars.len()).find(|&i| any.contains(&chars[i]))
}

fn find_seq(chars: &[char], from: usize, seq: &str) -> Option<usize> {
    let seq: Vec<char> = seq.chars().collect();
    (from..chars.len()).find(|&i| chars[i..].starts_with(&seq))
}

#[cfg(test)]
mod tests {
    use super::created_tables;

    #[test]
    fn every_form_of_create_table_counts() {
        let sql = r#"
            CREATE TABLE posts (id BIGINT PRIMARY KEY);
            create table if not exists "Comments" (id INTEGER);
            CREATE TABLE public.tags (id INTEGER);
            CREATE TABLE IF NOT EXISTS "app"."likes" (id INTEGER);
            CREATE TABLE `shop`.`orders` (id INT);
            CREATE OR REPLACE TABLE carts (id INT);
            CREATE UNLOGGED TABLE events (id INT);
            CREATE TABLE [users] (id INT);
            CREATE TABLE copies AS SELECT * FROM posts;
        "#;
        assert_eq!(
            created_tables(sql),
            ["posts", "Comments", "tags", "likes", "orders", "carts", "events", "users", "copies"]
        );
    }

    #[test]
    fn comments_strings_bodies_and_temporary_tables_create_nothing() {
        let sql = r#"
            -- CREATE TABLE in_a_line_comment (id INT);
            # CREATE TABLE in_a_mysql_comment (id INT);
            /* CREATE TABLE in_a_block_comment (id INT); */
            INSERT INTO notes VALUES ('CREATE TABLE in_a_string (id INT); it''s text');
            CREATE FUNCTION f() RETURNS void AS $body$ CREATE TABLE in_a_body (id INT); $body$ LANGUAGE sql;
            DO $$ BEGIN CREATE TABLE in_an_anonymous_body (id INT); END $$;
            CREATE TEMPORARY TABLE scratch (id INT);
            CREATE GLOBAL TEMP TABLE scratch2 (id INT);
            CREATE INDEX posts_title ON posts (title);
            CREATE TABLE real_one (id INT, price TEXT DEFAULT '$1');
        "#;
        assert_eq!(created_tables(sql), ["real_one"]);
    }

    #[test]
    fn unfinished_sql_is_no_panic() {
        for sql in
            ["CREATE TABLE", "CREATE TABLE \"open", "CREATE TABLE a.", "$tag", "'", "/*", "["]
        {
            let _ = created_tables(sql);
        }
        assert_eq!(created_tables("CREATE TABLE a."), Vec::<String>::new());
    }
}
