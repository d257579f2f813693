-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "posts_keyset_slug_unique" ON "posts" ("slug" ASC);
