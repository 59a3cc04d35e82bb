/** The vault's channels. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { VaultService } from './service'

export function vaultHandlers(s: { vault: VaultService }): HandlersOf<'vault'> {
  return {
    'vault:status': () => s.vault.status(),
    'vault:attach': (a, ctx) => s.vault.attach(actorOf(ctx).name, a.folder),
    'vault:verify': () => s.vault.verify(),
    'vault:events': (a) => s.vault.events(a),
    'vault:export': (a, ctx) => s.vault.exportDays(actorOf(ctx).name, a.from, a.to),
    'vault:reconcile': (a, ctx) => s.vault.reconcile(actorOf(ctx).name, a.day, a.feed),
  }
}
