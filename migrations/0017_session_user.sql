-- Sessions are stored only for signed-in users (anonymous visitors get a signed CSRF cookie
-- instead), and each user keeps a bounded number of them: the session's user is a column, so they
-- can be counted and the oldest dropped. Rows of anonymous visitors from before are removed.
ALTER TABLE session ADD COLUMN user_id INTEGER;
UPDATE session SET user_id = json_extract(data, '$.userId');
DELETE FROM session WHERE user_id IS NULL;
CREATE INDEX session_user ON session (user_id, expires_at);
