// Endpoint presets offered in the settings UI. A preset only pre-fills the form: every field stays
// editable, and the judge client never special-cases a provider beyond what is declared here. What the
// page says of a preset (its name, with "local" or "compatible mode", and its note) is a message in
// each language: `judge.preset_<id>` and `judge.preset_note_<id>` (server/i18n/*-judge.ts).

export type StructuredOutputMode = 'json_schema' | 'json_object';

export interface EndpointPreset {
  id: 'openai' | 'dashscope' | 'ollama' | 'vllm';
  baseURL: string;
  /** Empty string = the user must type the model name (vLLM serves whatever it was started with). */
  chatModel: string;
  embeddingModel: string;
  structuredOutput: StructuredOutputMode;
  /** Whether the endpoint normally needs an API key (local servers accept any placeholder). */
  needsApiKey: boolean;
  /** Max texts per embeddings request; providers differ and reject larger batches. */
  embeddingBatchSize: number;
}

export const presets: readonly EndpointPreset[] = [
  {
    id: 'openai',
    baseURL: 'https://api.openai.com/v1',
    chatModel: 'gpt-4o-mini',
    embeddingModel: 'text-embedding-3-small',
    structuredOutput: 'json_schema',
    needsApiKey: true,
    embeddingBatchSize: 256,
  },
  {
    id: 'dashscope',
    baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    chatModel: 'qwen-plus',
    embeddingModel: 'text-embedding-v3',
    structuredOutput: 'json_schema',
    needsApiKey: true,
    // DashScope's compatible-mode embeddings accept at most 10 inputs per request.
    embeddingBatchSize: 10,
  },
  {
    id: 'ollama',
    baseURL: 'http://localhost:11434/v1',
    chatModel: 'llama3.1',
    embeddingModel: 'nomic-embed-text',
    // json_object is the mode Ollama's OpenAI-compatible endpoint has supported longest.
    structuredOutput: 'json_object',
    needsApiKey: false,
    embeddingBatchSize: 64,
  },
  {
    id: 'vllm',
    baseURL: 'http://localhost:8000/v1',
    chatModel: '',
    embeddingModel: '',
    structuredOutput: 'json_schema',
    needsApiKey: false,
    embeddingBatchSize: 64,
  },
];

export function findPreset(id: string): EndpointPreset | undefined {
  return presets.find((p) => p.id === id);
}
