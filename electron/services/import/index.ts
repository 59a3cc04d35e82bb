/**
 * The sales-feed import (README.md beside this file): the only entrance from outside the folder.
 */
export { createImporter, MAX_LISTED, STREAM_FROM_BYTES, type Importer, type ImporterDeps } from './importer'
export { feedLine, notUtf8Refusal, readFeedFile } from './feed'
export { FeedArrival, registerArrival } from './arrival'
export { sha256Of } from './history'
export { closeImportWorkers, workerImport, writeTurnOf } from './runner'
export type { ImportJob, ImportWorkerData, ImportWorkerMessage } from './runner'
export { WriteTurn } from './write-turn'
// the feed reader's thread: its worker entry (workers/feed-reader-worker.ts), tests and benchmarks
export { CTRL, READER, readFeedIntoRing, type FeedReadJob } from './feed-ring'
export { startFeedReader, warmFeedReader } from './reader-thread'
export { packFastPlay, readFeedLineFast } from './feed-line'
// its channels' handlers, which electron/app/handlers.ts combines
export { importHandlers } from './handlers'
