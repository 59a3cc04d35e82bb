import { defineStore } from 'pinia'
import { reactive, ref } from 'vue'
import { api } from '../api'
import type { JobInfo } from '../../../electron/contract'

export const JOB_POLL_MS = 300
/** How many ended tasks the header's list keeps. */
export const RECENT_JOBS = 10

type Listener = (job: JobInfo) => void

/**
 * Long tasks (generate, verify, simulate, demo, backup, ledger check): polled until they end,
 * shared by every screen. A task that ends is kept in `recent` and told once to `onEnded`'s
 * listeners (the header says it, whatever screen is open); a screen's own `onEnd` reloads it.
 */
export const useJobsStore = defineStore('jobs', () => {
  const jobs = reactive<Record<string, JobInfo>>({})
  const recent = ref<JobInfo[]>([])
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const listeners = new Map<string, Listener[]>()
  const endedListeners = new Set<Listener>()

  function finish(job: JobInfo) {
    timers.delete(job.id)
    const ls = listeners.get(job.id) ?? []
    listeners.delete(job.id)
    for (const l of ls) l(job)
    if (recent.value.some((j) => j.id === job.id)) return
    recent.value = [job, ...recent.value].slice(0, RECENT_JOBS)
    for (const l of endedListeners) l(job)
  }

  /** Calls `listener` once for every task that ends from now on; returns the unsubscription. */
  function onEnded(listener: Listener): () => void {
    endedListeners.add(listener)
    return () => endedListeners.delete(listener)
  }

  async function poll(id: string) {
    try {
      const job = await api.call('jobs:get', { jobId: id })
      jobs[id] = job
      if (job.state === 'running')
        timers.set(
          id,
          setTimeout(() => poll(id), JOB_POLL_MS),
        )
      else finish(job)
    } catch {
      // A lost poll is retried more slowly; the job goes on in the backend regardless.
      timers.set(
        id,
        setTimeout(() => poll(id), JOB_POLL_MS * 5),
      )
    }
  }

  /** Follows a job; `onEnd` runs once when it is done, failed or cancelled. */
  function track(job: JobInfo | string, onEnd?: Listener) {
    const id = typeof job === 'string' ? job : job.id
    if (typeof job !== 'string') jobs[id] = job
    const ls = listeners.get(id) ?? []
    if (onEnd && !ls.includes(onEnd)) listeners.set(id, [...ls, onEnd])
    if (!timers.has(id)) {
      if (typeof job !== 'string' && job.state !== 'running') finish(job)
      else
        timers.set(
          id,
          setTimeout(() => poll(id), typeof job === 'string' ? 0 : JOB_POLL_MS),
        )
    }
  }

  async function cancel(id: string) {
    const job = await api.call('jobs:cancel', { jobId: id })
    jobs[id] = job
    return job
  }

  async function list() {
    const all = await api.call('jobs:list', {})
    for (const j of all) if (!timers.has(j.id)) jobs[j.id] = j
    return all
  }

  return { jobs, recent, track, cancel, list, onEnded }
})
