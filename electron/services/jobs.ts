/**
 * Long tasks (generate, verify, simulate, demo): each runs as a promise with an AbortController,
 * reports progress into its JobInfo, and ends done, failed or cancelled. The registry lives in
 * memory: a task does not survive its process, and the ledger never depends on one finishing.
 * A task that must not run twice across workstations is started with its lease (leases.ts): its
 * progress beats the lease, a lease taken over by another workstation stops it, and its end drops it.
 */
import { randomUUID } from 'node:crypto'
import { AppError, because } from '../contract/errors'
import type { JobInfo, JobKind } from '../contract/types'
import { type Clock, iso } from './common'
import type { Lease } from './leases'

export interface JobContext {
  signal: AbortSignal
  progress(done: number, total: number, message?: string): void
  /** Throws AppError('CANCELLED') once the job was cancelled. */
  checkCancelled(): void
}

export interface JobRegistry {
  /** Starts `run` at once; its resolved string (if any) becomes the final message. The lease is held until it ends. */
  start(
    kind: JobKind,
    emission: number | null,
    total: number,
    message: string,
    run: (ctx: JobContext) => Promise<string | void>,
    lease?: Lease,
  ): JobInfo
  get(jobId: string): JobInfo
  list(): JobInfo[]
  cancel(jobId: string): JobInfo
  /** The running job on this emission, if any. */
  runningOn(emission: number): JobInfo | null
  /** Resolves with the final JobInfo (tests, the CLI). */
  wait(jobId: string): Promise<JobInfo>
  /** Cancels every running job and waits for them to end. */
  shutdown(): Promise<void>
}

const KEEP_FINISHED = 100

/** The end of a task whose lease another workstation took over (its heartbeat was too old). */
function leaseLost(kind: JobKind, lease: Lease): AppError {
  return new AppError(
    'CONFLICT',
    `the ${kind} task on ${lease.subject} stopped: another workstation took its lease over after its heartbeat went stale`,
    because('LEASE_LOST', { kind, subject: lease.subject }),
  )
}

/** Drops the lease at a task's end; a ledger closed meanwhile leaves it to be taken over. */
function dropQuietly(lease: Lease | undefined): void {
  try {
    lease?.drop()
  } catch {
    // the backend closed mid-task: its lease is dead (leases.ts) and taken over
  }
}

export function createJobRegistry({ clock }: { clock: Clock }): JobRegistry {
  const jobs = new Map<string, { info: JobInfo; controller: AbortController; finished: Promise<JobInfo> }>()

  function find(jobId: string) {
    const j = jobs.get(jobId)
    if (!j)
      throw new AppError('NOT_FOUND', `no task with id ${jobId}`, { field: 'jobId', ...because('TASK_NOT_FOUND') })
    return j
  }

  function prune(): void {
    const finished = [...jobs.values()].filter((j) => j.info.state !== 'running')
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) jobs.delete(j.info.id)
  }

  const registry: JobRegistry = {
    start(kind, emission, total, message, run, lease) {
      const controller = new AbortController()
      let lost = false
      const info: JobInfo = {
        id: randomUUID(),
        kind,
        emission,
        state: 'running',
        done: 0,
        total,
        message,
        startedAt: iso(clock()),
        endedAt: null,
      }
      const ctx: JobContext = {
        signal: controller.signal,
        progress(done, t, m) {
          if (lease && !lost && !lease.beat()) {
            lost = true
            controller.abort()
          }
          info.done = done
          info.total = t
          if (m !== undefined) info.message = m
        },
        checkCancelled() {
          if (lost) throw leaseLost(kind, lease!)
          if (controller.signal.aborted)
            throw new AppError('CANCELLED', 'the task was cancelled', because('TASK_CANCELLED'))
        },
      }
      const finished = (async () => {
        try {
          // let the caller receive the JobInfo before any work starts
          await Promise.resolve()
          const final = await run(ctx)
          info.state = 'done'
          if (typeof final === 'string') info.message = final
        } catch (thrown) {
          const e = lost ? leaseLost(kind, lease!) : thrown
          const cancelled = !lost && (controller.signal.aborted || (e instanceof AppError && e.code === 'CANCELLED'))
          info.state = cancelled ? 'cancelled' : 'failed'
          info.message = cancelled ? 'cancelled' : e instanceof Error ? e.message : String(e)
          if (!cancelled && e instanceof AppError && e.extras.reason) info.reason = e.extras.reason
        } finally {
          info.endedAt = iso(clock())
          dropQuietly(lease)
        }
        return { ...info }
      })()
      jobs.set(info.id, { info, controller, finished })
      prune()
      return { ...info }
    },
    get: (jobId) => ({ ...find(jobId).info }),
    list: () => [...jobs.values()].map((j) => ({ ...j.info })).reverse(),
    cancel(jobId) {
      const j = find(jobId)
      if (j.info.state !== 'running')
        throw new AppError(
          'ILLEGAL_STATE',
          `the task ${jobId} has already ended (${j.info.state})`,
          because('TASK_ENDED', { state: j.info.state }),
        )
      j.controller.abort()
      j.info.message = 'cancelling…'
      return { ...j.info }
    },
    runningOn(emission) {
      for (const j of jobs.values())
        if (j.info.emission === emission && j.info.state === 'running') return { ...j.info }
      return null
    },
    wait: (jobId) => find(jobId).finished,
    async shutdown() {
      const running = [...jobs.values()].filter((j) => j.info.state === 'running')
      for (const j of running) j.controller.abort()
      await Promise.all(running.map((j) => j.finished))
    },
  }
  return registry
}
