-- Who last changed a sample's content: approval must come from someone who neither wrote the sample
-- nor last changed it. Filled from the audit log, which records every content edit with its author.
ALTER TABLE sample ADD COLUMN last_editor_id INTEGER REFERENCES user (id);
UPDATE sample SET last_editor_id = (SELECT e.actor_id FROM audit_event e
  WHERE e.entity_type = 'sample' AND e.entity_id = sample.id AND e.action = 'update' ORDER BY e.id DESC LIMIT 1);
