-- Every post has an author, and users follow authors: what a feed pages among. The posts that
-- exist get author 1; new ones name theirs (the default is dropped).
ALTER TABLE posts ADD COLUMN author_id BIGINT NOT NULL DEFAULT 1;
ALTER TABLE posts ALTER COLUMN author_id DROP DEFAULT;
CREATE TABLE follows (
    follower_id BIGINT NOT NULL,
    author_id BIGINT NOT NULL,
    PRIMARY KEY (follower_id, author_id)
);
