/**
 * Page latency at scale: every main page requested for a dataset of --items items (default 100,000)
 * and, in the same app and run, for a dataset of --small items (default 100), each with answers,
 * two experts' labels (disagreeing on every third item), a tag and an imported judge run. A page
 * that stays fast does the same work whatever the size: its ratio large ÷ small stays near 1. A
 * ratio in the hundreds means the page reads or computes over every item on each request. Pages
 * that compute over a whole dataset keep the result until its data changes (server/db/derived-cache.ts):
 * the first view at the large size is reported next to the median of the views after it.
 *
 *   npx tsx bench/pages.ts [--items 100000] [--small 100] [--repeat 5]
 *
 * Not a target from an issue: the standard is "pages that stay fast at 100,000 items". The report
 * lists the median time of each page at both sizes and the ratio, slowest first. Requests go over
 * loopback to the real app (the test harness's server and client), one at a time, after one
 * unmeasured request per page.
 */
import { loginAs, seedScaleDataset, setupAdmin, startTestApp, type Client, type ScaleDataset } from '../test/helpers.ts';
import { intArg, isMain, median, runInfo, table, writeResult } from './common.ts';

const ITEMS = intArg('items', 100_000);
const SMALL = intArg('small', 100);
const REPEAT = intArg('repeat', 5);

type Seeded = ScaleDataset;

const PAGES: [string, (s: Seeded) => string][] = [
  ['samples', (s) => `/datasets/${s.datasetId}`],
  ['samples, page 20', (s) => `/datasets/${s.datasetId}?page=20`],
  ['samples, search "张伟" (2 characters)', (s) => `/datasets/${s.datasetId}?q=${encodeURIComponent('张伟')}`],
  ['samples, search "研发部"', (s) => `/datasets/${s.datasetId}?q=${encodeURIComponent('研发部')}`],
  ['samples, tag filter', (s) => `/datasets/${s.datasetId}?tag=it`],
  ['sample', (s) => `/samples/${s.sampleId}`],
  ['response', (s) => `/responses/${s.responseId}`],
  ['labelling queue', (s) => `/datasets/${s.datasetId}/label`],
  ['labelling workspace', (s) => `/responses/${s.responseId}/label`],
  ['disagreements', (s) => `/datasets/${s.datasetId}/disagreements`],
  ['agreement', (s) => `/datasets/${s.datasetId}/agreement`],
  ['runs', (s) => `/datasets/${s.datasetId}/runs`],
  ['run', (s) => `/runs/${s.runId}`],
  ['review queue', (s) => `/runs/${s.runId}/review`],
  ['review item', (s) => `/runs/${s.runId}/review/${s.responseId}`],
  ['calibration report', (s) => `/datasets/${s.datasetId}/calibration?criterion=${s.criterionId}&run=${s.runId}`],
  ['prompt lab', (s) => `/datasets/${s.datasetId}/prompt-lab?criterion=${s.criterionId}`],
  ['export page', (s) => `/datasets/${s.datasetId}/export`],
  ['per-context calibration', (s) => `/datasets/${s.datasetId}/calibration/contexts?criterion=${s.contextCriterionId}&run=${s.contextRunId}&part=all`],
  ['context disagreements', (s) => `/runs/${s.contextRunId}/review/contexts?criterion=${s.contextCriterionId}`],
  ['context under review', (s) => `/runs/${s.contextRunId}/review/contexts/${s.responseId}/2?criterion=${s.contextCriterionId}`],
  ['prompt lab, verify step', (s) => `/datasets/${s.datasetId}/prompt-lab?metric=context_precision&step=verify&criterion=${s.contextCriterionId}`],
];

async function time(client: Client, url: string): Promise<number> {
  const start = performance.now();
  const res = await client.get(url);
  const elapsed = performance.now() - start;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return elapsed;
}

async function main(): Promise<void> {
  console.log(`pages bench: ${ITEMS} vs ${SMALL} items, ${REPEAT} requests per page and size, node ${process.version}`);
  const app = await startTestApp();
  try {
    const admin = await setupAdmin(app);
    const t = performance.now();
    const small = await seedScaleDataset(app, 'small', SMALL);
    const largeSet = await seedScaleDataset(app, 'large', ITEMS);
    app.ctx.searchIndex.catchUp();
    console.log(`  seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    // An expert who has labelled neither dataset, so both labelling queues are in the same state.
    const expert = await loginAs(app, 'zhao@bench.test', 'expert');
    const rows: { page: string; smallMs: number; largeFirstMs: number; largeMs: number; ratio: number }[] = [];
    for (const [page, url] of PAGES) {
      const client = url(small).includes('/label') ? expert : admin;
      const measure = async (s: Seeded) => {
        const first = await time(client, url(s));
        const times: number[] = [];
        for (let i = 0; i < REPEAT; i++) times.push(await time(client, url(s)));
        return { first, again: median(times) };
      };
      const smallMs = (await measure(small)).again;
      const large = await measure(largeSet);
      rows.push({ page, smallMs, largeFirstMs: large.first, largeMs: large.again, ratio: large.again / smallMs });
    }
    rows.sort((a, b) => b.largeMs - a.largeMs);
    console.log('\n' + table([
      ['page', `median ms at ${SMALL} → ${ITEMS} items  (ratio);  first view at ${ITEMS}`],
      ...rows.map((r): [string, string] => [r.page, `${r.smallMs.toFixed(1)} → ${r.largeMs.toFixed(1)}  (${r.ratio.toFixed(1)}×);  ${r.largeFirstMs.toFixed(0)}`]),
    ]));
    const slow = rows.filter((r) => r.largeMs > 100);
    const summary = `pages: ${rows.length - slow.length} of ${rows.length} pages under 100 ms at ${ITEMS} items; slowest ${rows[0]!.page} ${rows[0]!.largeMs.toFixed(0)} ms`;
    console.log(`\n${summary}`);
    writeResult('pages.json', { bench: 'pages', summary, items: ITEMS, small: SMALL, repeat: REPEAT, pages: rows, ...runInfo() });
  } finally {
    await app.close();
  }
}

if (isMain(import.meta.url)) await main();
