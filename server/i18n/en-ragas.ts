// English: the Ragas round trip (Ragas-named metrics, prompt files for Ragas, results imports).
export const enRagas = {
  'ragas.suggested_zh': 'suggested for Chinese',
} as const;
