-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "memberships_keyset_joined_at_asc_team_id_asc_user_id_asc" ON "memberships" ("joined_at" ASC, "team_id" ASC, "user_id" ASC);
