// Entry of goldset's TypeScript worker threads: registers the tsx loader in this thread (Node 20
// workers do not inherit the one the app was started with), then loads the worker's module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
