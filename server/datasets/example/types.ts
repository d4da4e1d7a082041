// One item of the example datasets: a question with its ground truth, the context that answers it,
// a context that does not, and a wrong answer a RAG system could give.
export interface ExampleItem { q: string; gt: string; ctx: string; other: string; wrong: string; tags: string[] }
