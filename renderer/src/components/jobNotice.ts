import type { JobInfo } from '../../../electron/contract'

type Translate = (key: string, values?: Record<string, unknown>) => string
export interface JobNotice {
  type: 'success' | 'warning' | 'error'
  text: string
}

/**
 * What a task that ended says, naming its emission and its verdict: a verification that ends
 * `done` found every block sound (an unsound block fails it, with the blocks named in its reason).
 * `reason` is the failure said in the user's language (useErrors' describeReason).
 */
export function jobNotice(job: JobInfo, t: Translate, reason: (job: JobInfo) => string): JobNotice {
  const kind = t(`jobs.${job.kind}`)
  if (job.emission === null) {
    if (job.state === 'done') return { type: 'success', text: t('jobs.done', { kind }) }
    if (job.state === 'cancelled') return { type: 'warning', text: t('jobs.cancelled') }
    return { type: 'error', text: t('jobs.failed', { message: reason(job) }) }
  }
  const n = job.emission
  if (job.state === 'done') {
    if (job.kind === 'demo') return { type: 'success', text: t('emissions.empty.demoDone') }
    const text = job.kind === 'verify' ? t('jobs.verifySound', { n }) : t('jobs.doneOf', { kind, n })
    return { type: 'success', text }
  }
  if (job.state === 'cancelled') return { type: 'warning', text: t('jobs.cancelledOf', { kind, n }) }
  return { type: 'error', text: t('jobs.failedOf', { kind, n, message: reason(job) }) }
}
