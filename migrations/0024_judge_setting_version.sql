-- The judge's settings carry a version, as datasets and criteria do: a form sends back the version it
-- showed, and a save over someone else's newer one is refused (server/judge/settings.ts) instead of
-- overwriting it silently.
ALTER TABLE judge_setting ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
