import { describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../electron/contract'
import { createAppI18n } from '../i18n'
import { jobNotice } from './jobNotice'

const job = (over: Partial<JobInfo>): JobInfo => ({
  id: 'j1',
  kind: 'verify',
  emission: 3,
  state: 'done',
  done: 1,
  total: 1,
  message: '',
  startedAt: '2026-12-07T10:00:00.000Z',
  endedAt: '2026-12-07T10:00:09.000Z',
  ...over,
})

describe('what a task that ended says', () => {
  const i18n = createAppI18n('fr')
  const t = (k: string, p?: Record<string, unknown>) => i18n.global.t(k, p ?? {})
  const reason = () => 'le bloc 2 n’est pas sain'

  it('names the emission and the verdict of a verification', () => {
    expect(jobNotice(job({}), t, reason)).toEqual({
      type: 'success',
      text: 'Vérification de l’émission 3 : terminée, chaque bloc est sain.',
    })
    expect(jobNotice(job({ state: 'failed' }), t, reason)).toEqual({
      type: 'error',
      text: 'Vérification de l’émission 3 : échec. le bloc 2 n’est pas sain',
    })
  })

  it('names the emission of the other tasks, and says a cancelled one', () => {
    expect(jobNotice(job({ kind: 'generate' }), t, reason).text).toBe('Génération de l’émission 3 : terminée.')
    expect(jobNotice(job({ kind: 'simulate', state: 'cancelled' }), t, reason)).toEqual({
      type: 'warning',
      text: 'Simulation des ventes de l’émission 3 : annulée.',
    })
    expect(jobNotice(job({ kind: 'backup', emission: null }), t, reason).text).toBe(
      'Sauvegarde du registre : terminée.',
    )
  })
})
