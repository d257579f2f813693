-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE INDEX `memberships_keyset_joined_at_asc_team_id_asc_user_id_asc` ON `memberships` (`joined_at` ASC, `team_id` ASC, `user_id` ASC);
CREATE INDEX `posts_keyset_created_at_desc_id_desc` ON `posts` (`created_at` DESC, `id` DESC);
CREATE INDEX `posts_keyset_rank_desc_nulls_last_id_desc` ON `posts` (`rank` DESC, `id` DESC);
CREATE INDEX `posts_keyset_score_asc_created_at_desc_id_asc` ON `posts` (`score` ASC, `created_at` DESC, `id` ASC);
CREATE UNIQUE INDEX `posts_keyset_slug_unique` ON `posts` (`slug` ASC);
