import type { ChannelName, EmissionSummary } from '../../../../electron/contract'
import { nextSteps, type EmissionAction } from './columns'

/** What the emission screen offers besides the list's steps: imports, and its two documents. */
export type EmissionScreenAction = EmissionAction | 'import' | 'report'

/** The channel each action calls: an action is offered only to a role the contract lets call it. */
export const ACTION_CHANNEL: Record<Exclude<EmissionScreenAction, 'details'>, ChannelName> = {
  generate: 'emissions:generate',
  verify: 'emissions:verify',
  open: 'emissions:open',
  close: 'emissions:close',
  withdraw: 'emissions:withdraw',
  simulate: 'sales:simulate',
  import: 'sales:import',
  certificate: 'emissions:certificate',
  report: 'verifications:report',
}

/**
 * The steps the emission's state allows (the list's own rule, columns.ts nextSteps), then an
 * import while it is on sale, then its certificate and, once verified, its verification report;
 * only those the signed-in role may take.
 */
export function screenActions(e: EmissionSummary, hasVerdict: boolean, may: (channel: ChannelName) => boolean): EmissionScreenAction[] {
  const steps: EmissionScreenAction[] = nextSteps(e).filter((a) => a !== 'details')
  if (e.status === 'open' && !e.jobId) steps.push('import')
  steps.push('certificate')
  if (hasVerdict) steps.push('report')
  return steps.filter((a) => a !== 'details' && may(ACTION_CHANNEL[a]))
}
