/** The ledger's office: its screen, its check and backups, this workstation's ledger setting. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { LedgerOffice } from './service'
import type { LedgerSettingService } from './setting'

export function ledgerOfficeHandlers(s: {
  ledger: LedgerOffice
  ledgerSetting: LedgerSettingService
}): HandlersOf<'ledger' | 'settings'> {
  return {
    'ledger:status': () => s.ledger.status(),
    'ledger:check': (a, ctx) => s.ledger.startCheck(actorOf(ctx), a.prizes),
    'ledger:backup': (_a, ctx) => s.ledger.startBackup(actorOf(ctx)),
    'settings:ledger': () => s.ledgerSetting.view(),
    'settings:ledgerSet': (a, ctx) => s.ledgerSetting.save(actorOf(ctx), a),
    'settings:ledgerTest': (a) => s.ledgerSetting.test(a),
  }
}
