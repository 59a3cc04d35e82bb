/** The import's channels: a feed imported, the history of imports. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { Handlers } from '../../contract/dispatch'
import { actorOf } from '../common'
import type { ImporterService } from '../extensions'

export function importHandlers(s: { importer: ImporterService }): Pick<Handlers, 'sales:import' | 'sales:imports'> {
  return {
    'sales:import': (a, ctx) => s.importer.importContent(actorOf(ctx), a.content, a.fileName, a.sha256),
    'sales:imports': (a) => s.importer.history(a),
  }
}
