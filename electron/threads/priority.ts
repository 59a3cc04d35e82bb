import { setPriority } from 'node:os'

/** The niceness of a thread doing long work in the background (an import): staff's calls go first. */
export const BACKGROUND_NICE = 10

/**
 * Lowers the calling thread's CPU priority, so that on a busy machine the threads answering
 * staff's calls (the host's, the reading threads) are scheduled before it. Linux only: there a
 * niceness is a thread's own (setpriority on pid 0 is the calling thread) and the threads it
 * starts afterwards inherit it (its feed reader, its PostgreSQL connection's thread); elsewhere it
 * would lower the whole process, the app's window with it, so it does nothing. A thread cannot
 * raise its priority back: call it only in a worker that does background work and nothing else.
 */
export function runInBackground(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false
  try {
    setPriority(BACKGROUND_NICE)
    return true
  } catch {
    // not allowed here (a sandbox): the import runs at the usual priority
    return false
  }
}
