DROP TABLE memberships;
DROP TABLE posts;
