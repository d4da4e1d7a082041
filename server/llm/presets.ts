// Endpoint presets offered in the settings UI. A preset only pre-fills the form: every field stays
// editable, and the judge client never special-cases a provider beyond what is declared here.

export type StructuredOutputMode = 'json_schema' | 'json_object';

export interface EndpointPreset {
  id: 'openai' | 'dashscope' | 'ollama' | 'vllm';
  label: string;
  baseURL: string;
  /** Empty string = the user must type the model name (vLLM serves whatever it was started with). */
  chatModel: string;
  embeddingModel: string;
  structuredOutput: StructuredOutputMode;
  /** Whether the endpoint normally needs an API key (local servers accept any placeholder). */
  needsApiKey: boolean;
  /** Max texts per embeddings request; providers differ and reject larger batches. */
  embeddingBatchSize: number;
  note: string;
}

export const presets: readonly EndpointPreset[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    baseURL: 'https://api.openai.com/v1',
    chatModel: 'gpt-4o-mini',
    embeddingModel: 'text-embedding-3-small',
    structuredOutput: 'json_schema',
    needsApiKey: true,
    embeddingBatchSize: 256,
    note: 'Structured outputs (json_schema) are enforced server-side.',
  },
  {
    id: 'dashscope',
    label: 'DashScope (Qwen, compatible mode)',
    baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    chatModel: 'qwen-plus',
    embeddingModel: 'text-embedding-v3',
    structuredOutput: 'json_schema',
    needsApiKey: true,
    // DashScope's compatible-mode embeddings accept at most 10 inputs per request.
    embeddingBatchSize: 10,
    note: 'If the model rejects json_schema, switch structured output to json_object.',
  },
  {
    id: 'ollama',
    label: 'Ollama (local)',
    baseURL: 'http://localhost:11434/v1',
    chatModel: 'llama3.1',
    embeddingModel: 'nomic-embed-text',
    // json_object is the mode Ollama's OpenAI-compatible endpoint has supported longest.
    structuredOutput: 'json_object',
    needsApiKey: false,
    embeddingBatchSize: 64,
    note: 'Pull the models first (ollama pull llama3.1 / nomic-embed-text). Any API key works.',
  },
  {
    id: 'vllm',
    label: 'vLLM (self-hosted)',
    baseURL: 'http://localhost:8000/v1',
    chatModel: '',
    embeddingModel: '',
    structuredOutput: 'json_schema',
    needsApiKey: false,
    embeddingBatchSize: 64,
    note: 'Enter the model name vLLM was started with (see GET /v1/models). Key only if started with --api-key.',
  },
];

export function findPreset(id: string): EndpointPreset | undefined {
  return presets.find((p) => p.id === id);
}
