/**
 * The contract's handlers: each domain's group (its `handlers.ts`, Actual Budget's model),
 * combined here, and the jobs' channels, which every domain's long tasks share. Thin: the
 * dispatcher has already validated the arguments and checked the caller's role against the
 * channel's access; each handler names the actor and calls a service. The type `Handlers` makes
 * the combination whole: a channel without its handler does not compile.
 */
import type { Handlers } from '../contract/dispatch'
import { auditHandlers } from '../services/audit'
import { vaultHandlers } from '../services/vault'
import { claimsHandlers } from '../services/claims'
import { actorOf, type HandlersOf } from '../services/common'
import { emissionsHandlers } from '../services/emissions'
import { importHandlers } from '../services/import'
import { ledgerOfficeHandlers } from '../services/ledger-office'
import { playersHandlers } from '../services/players'
import { reportsHandlers } from '../services/reports'
import { salesHandlers } from '../services/sales'
import { simulatorHandlers } from '../services/simulator'
import { staffHandlers } from '../services/staff'
import { todoHandlers } from '../services/todo'
import type { Services } from './context'

/** The long tasks of every domain, followed and cancelled (a cancel is logged). */
function jobsHandlers(s: Pick<Services, 'jobs' | 'audit'>): HandlersOf<'jobs'> {
  return {
    'jobs:get': (a) => s.jobs.get(a.jobId),
    'jobs:list': () => s.jobs.list(),
    'jobs:cancel': (a, ctx) => {
      const job = s.jobs.cancel(a.jobId)
      s.audit.record(actorOf(ctx).name, 'job.cancel', `job:${job.id}`, { kind: job.kind, emission: job.emission })
      return job
    },
  }
}

export function createHandlers(s: Services): Handlers {
  return {
    ...staffHandlers(s),
    ...emissionsHandlers(s),
    ...jobsHandlers(s),
    ...simulatorHandlers(s),
    ...importHandlers(s),
    ...salesHandlers(s),
    ...playersHandlers(s),
    ...reportsHandlers(s),
    ...claimsHandlers(s),
    ...auditHandlers(s),
    ...vaultHandlers(s),
    ...ledgerOfficeHandlers(s),
    ...todoHandlers(s),
  }
}
