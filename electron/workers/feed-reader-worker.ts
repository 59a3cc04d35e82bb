/**
 * Worker thread: reads sales feeds for the importer (services/import/feed-ring.ts), one at a time, as
 * they come. It answers nothing by message: all it says goes through the ring's shared memory,
 * since the importer waits for it without returning to its event loop.
 */
import { parentPort } from 'node:worker_threads'
import { readFeedIntoRing, type FeedReadJob } from '../services/import'

parentPort!.on('message', (job: FeedReadJob) => readFeedIntoRing(job))
