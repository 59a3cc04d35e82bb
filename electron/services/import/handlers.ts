/** The import's channels: a feed imported, the history of imports, a refusal's reasons as CSV, a sample feed. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { Handlers } from '../../contract/dispatch'
import { actorOf } from '../common'
import type { ImporterService } from '../extensions'

export function importHandlers(s: {
  importer: ImporterService
}): Pick<Handlers, 'sales:import' | 'sales:imports' | 'sales:importReasonsCsv' | 'sales:sampleFeed'> {
  return {
    'sales:import': (a, ctx) => s.importer.importContent(actorOf(ctx), a.content, a.fileName, a.sha256),
    'sales:imports': (a) => s.importer.history(a),
    'sales:importReasonsCsv': (a) => s.importer.reasonsCsv(a),
    'sales:sampleFeed': () => s.importer.sampleFeed(),
  }
}
