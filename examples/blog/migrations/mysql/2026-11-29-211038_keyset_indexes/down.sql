-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX `posts_keyset_slug_unique` ON `posts`;
DROP INDEX `posts_keyset_score_asc_created_at_desc_id_asc` ON `posts`;
DROP INDEX `posts_keyset_rank_desc_nulls_last_id_desc` ON `posts`;
DROP INDEX `posts_keyset_created_at_desc_id_desc` ON `posts`;
DROP INDEX `memberships_keyset_joined_at_asc_team_id_asc_user_id_asc` ON `memberships`;
