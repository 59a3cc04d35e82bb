import type { ChannelName, EmissionSummary, KeyCeremony } from '../../../../electron/contract'
import { mayGenerate } from './ceremony'
import { nextSteps, type EmissionAction } from './columns'

/** What the emission screen offers besides the list's steps: imports, and its two documents. */
export type EmissionScreenAction = EmissionAction | 'import' | 'report'

/** The channel each action calls: an action is offered only to a role the contract lets call it. */
export const ACTION_CHANNEL: Record<Exclude<EmissionScreenAction, 'details'>, ChannelName> = {
  ceremony: 'ceremony:commit',
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
 * only those the signed-in role may take. The key ceremony is held in the screen's own card;
 * once it is complete, generation is offered.
 */
export function screenActions(
  e: EmissionSummary,
  hasVerdict: boolean,
  may: (channel: ChannelName) => boolean,
  ceremony: KeyCeremony | null = null,
): EmissionScreenAction[] {
  const steps: EmissionScreenAction[] = nextSteps(e).flatMap((a): EmissionScreenAction[] => {
    if (a === 'details') return []
    if (a === 'ceremony') return mayGenerate(e, ceremony) ? ['generate'] : []
    return [a]
  })
  if (e.status === 'open' && !e.jobId) steps.push('import')
  steps.push('certificate')
  if (hasVerdict) steps.push('report')
  return steps.filter((a) => a !== 'details' && may(ACTION_CHANNEL[a]))
}
