-- The LLM judge: connection settings, prompt versions, metrics, scoring runs with their scores and traces, call cache.

-- One row: the judge endpoint configured in the app (the environment is the fallback). The API key is
-- kept server-side and never rendered back.
CREATE TABLE judge_setting (
  id                INTEGER PRIMARY KEY CHECK (id = 1),
  preset            TEXT NOT NULL DEFAULT 'custom',
  base_url          TEXT NOT NULL,
  api_key           TEXT NOT NULL DEFAULT '',
  chat_model        TEXT NOT NULL,
  embedding_model   TEXT NOT NULL DEFAULT '',
  temperature       REAL NOT NULL DEFAULT 0 CHECK (temperature BETWEEN 0 AND 2),
  timeout_ms        INTEGER NOT NULL DEFAULT 60000 CHECK (timeout_ms BETWEEN 1000 AND 600000),
  max_concurrency   INTEGER NOT NULL DEFAULT 16 CHECK (max_concurrency BETWEEN 1 AND 256),
  structured_output TEXT NOT NULL DEFAULT 'json_schema' CHECK (structured_output IN ('json_schema', 'json_object')),
  price_prompt      REAL NOT NULL DEFAULT 0,  -- per million tokens, for cost estimates
  price_completion  REAL NOT NULL DEFAULT 0,
  updated_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- Custom and composite metrics of a dataset; built-in metrics live in code.
CREATE TABLE metric (
  id          INTEGER PRIMARY KEY,
  dataset_id  INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('custom', 'composite')),
  config      TEXT NOT NULL CHECK (json_valid(config)),
  created_by  INTEGER REFERENCES user (id),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (dataset_id, key)
) STRICT;

-- Every edit of a metric step's prompt is a new version; runs record the versions they used.
CREATE TABLE prompt_version (
  id           INTEGER PRIMARY KEY,
  dataset_id   INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  metric_key   TEXT NOT NULL,
  step         TEXT NOT NULL,
  version      INTEGER NOT NULL,
  template     TEXT NOT NULL CHECK (json_valid(template)),
  note         TEXT NOT NULL DEFAULT '',
  created_by   INTEGER REFERENCES user (id),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (dataset_id, metric_key, step, version)
) STRICT;

CREATE TABLE run (
  id               INTEGER PRIMARY KEY,
  dataset_id       INTEGER NOT NULL REFERENCES dataset (id) ON DELETE CASCADE,
  name             TEXT NOT NULL,
  metric_key       TEXT NOT NULL,
  source           TEXT NOT NULL CHECK (source IN ('goldset', 'imported')),
  status           TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'cancelled', 'failed')),
  model            TEXT NOT NULL DEFAULT '',
  embedding_model  TEXT NOT NULL DEFAULT '',
  -- step -> prompt_version id (null = built-in default) and the templates as used, for the record
  prompts          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(prompts)),
  -- which responses: {"system": ..., "response_ids": [...]} or {} for all
  selection        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(selection)),
  concurrency      INTEGER NOT NULL DEFAULT 16,
  n_total          INTEGER NOT NULL DEFAULT 0,
  llm_calls        INTEGER NOT NULL DEFAULT 0,
  cached_calls     INTEGER NOT NULL DEFAULT 0,
  prompt_tokens    INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  error            TEXT,
  created_by       INTEGER REFERENCES user (id),
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  started_at       TEXT,
  finished_at      TEXT,
  -- one run name can hold several metrics (an imported results file with several score columns)
  UNIQUE (dataset_id, name, metric_key)
) STRICT;

CREATE TABLE score (
  run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
  response_id  INTEGER NOT NULL REFERENCES response (id) ON DELETE CASCADE,
  status       TEXT NOT NULL CHECK (status IN ('ok', 'error', 'skipped')),
  value        REAL,
  reason       TEXT,
  trace        TEXT CHECK (trace IS NULL OR json_valid(trace)),
  scored_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (run_id, response_id),
  CHECK ((status = 'ok') = (value IS NOT NULL))
) STRICT, WITHOUT ROWID;

-- Identical LLM and embedding calls (same endpoint, model, messages, parameters) are answered from here.
CREATE TABLE llm_cache (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT, WITHOUT ROWID;
