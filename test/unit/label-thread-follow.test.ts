// How the main thread follows the labelling thread's writes (server/labels/label-thread-client.ts
// writeFollower): consecutive writes as one run of versions; a run the dataset has already gone past
// waits for the writes that continue it; a gap (another connection wrote between) starts a new run.
import { describe, expect, it } from 'vitest';
import { writeFollower } from '../../server/labels/label-thread-client.ts';
import type { AppContext } from '../../server/app-context.ts';
import type { RecordedWrite } from '../../server/db/derived-cache.ts';

function follower() {
  const state = { current: 0, calls: [] as [number, number, number, number[]][] };
  const follow = writeFollower({
    derived: {
      followWrite: (datasetId: number, from: number, to: number, touched: ReadonlyArray<readonly [number, unknown]>) => {
        state.calls.push([datasetId, from, to, touched.map(([id]) => id)]);
        return to === state.current; // the dataset is at `to` here
      },
    },
  } as unknown as AppContext);
  return { state, follow };
}
const write = (datasetId: number, from: number, to: number, ...ids: number[]): RecordedWrite => ({ datasetId, from, to, touched: ids.map((id) => [id, undefined]) });

describe('following the labelling thread\'s writes', () => {
  it('follows a group\'s consecutive writes as one run', () => {
    const { state, follow } = follower();
    state.current = 3;
    follow([write(1, 0, 1, 10), write(1, 1, 2, 11), write(1, 2, 3, 10, 12)]);
    expect(state.calls).toEqual([[1, 0, 3, [10, 11, 12]]]);
  });

  it('keeps a run the dataset is already past (the next group is on its way) and follows it once continued', () => {
    const { state, follow } = follower();
    state.current = 4; // the thread committed its next group before this one's answers were read
    follow([write(1, 0, 1, 10), write(1, 1, 2, 11)]);
    expect(state.calls).toEqual([[1, 0, 2, [10, 11]]]);
    follow([write(1, 2, 4, 12)]);
    expect(state.calls.at(-1)).toEqual([1, 0, 4, [10, 11, 12]]);
    state.current = 5;
    follow([write(1, 4, 5, 13)]); // followed: a new run from where the last one ended
    expect(state.calls.at(-1)).toEqual([1, 4, 5, [13]]);
  });

  it('starts a new run after a gap, and follows each dataset apart', () => {
    const { state, follow } = follower();
    state.current = 9;
    follow([write(1, 0, 1, 10)]); // not at 1: kept
    follow([write(2, 8, 9, 20), write(1, 7, 9, 11)]); // dataset 1: another connection wrote 1 → 7; a new run
    expect(state.calls.slice(1).sort((a, b) => a[0] - b[0])).toEqual([[1, 7, 9, [11]], [2, 8, 9, [20]]]);
  });
});
