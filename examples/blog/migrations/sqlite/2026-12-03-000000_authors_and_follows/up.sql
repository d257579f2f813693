-- Every post has an author, and users follow authors: what a feed pages among. The posts that
-- exist get author 1. SQLite adds a NOT NULL column only with a default, and keeps it (dropping
-- a default rebuilds the table, and with it every index).
ALTER TABLE posts ADD COLUMN author_id BIGINT NOT NULL DEFAULT 1;
CREATE TABLE follows (
    follower_id BIGINT NOT NULL,
    author_id BIGINT NOT NULL,
    PRIMARY KEY (follower_id, author_id)
);
