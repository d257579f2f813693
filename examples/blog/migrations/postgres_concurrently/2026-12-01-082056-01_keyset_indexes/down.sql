-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX CONCURRENTLY IF EXISTS "memberships_keyset_joined_at_asc_team_id_asc_user_id_asc";
