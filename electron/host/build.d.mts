/** Types of build.mjs (plain JavaScript, so that the host's launcher needs no TypeScript loader). */

/** The repository's root folder. */
export declare const PROJECT_ROOT: string
/** The files `electron-vite build` must produce, relative to the root. */
export declare const OUTPUTS: readonly string[]

export declare function buildStatus(root?: string): { fresh: true } | { fresh: false; why: string }

/** Runs `electron-vite build`; a failure throws an Error whose `reason` says in one line what went wrong. */
export declare function runBuild(root?: string): void

/** The one line of a failed build's output that says what is wrong (and where). */
export declare function failureReason(output: string): string

/** Builds out/ if it is missing or stale; concurrent callers wait for one build. Returns whether it built. */
export declare function ensureBuilt(opts?: { root?: string; log?: (message: string) => void }): Promise<boolean>

/** Runs `fn` holding the lock folder `lock`; a lock older than `staleMs` is taken over. */
export declare function withDirLock<T>(
  lock: string,
  staleMs: number,
  pollMs: number,
  fn: () => T | Promise<T>,
): Promise<T>
