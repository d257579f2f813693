-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "posts_keyset_score_asc_created_at_desc_id_asc" ON "posts" ("score" ASC, "created_at" DESC, "id" ASC);
