DROP TABLE follows;
ALTER TABLE posts DROP COLUMN author_id;
