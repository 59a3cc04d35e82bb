/** The audit log's channels. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { HandlersOf } from '../common'
import type { AuditService } from './service'

export function auditHandlers(s: { audit: AuditService }): HandlersOf<'audit'> {
  return {
    'audit:list': (a) => s.audit.list(a),
    'audit:verify': () => s.audit.verify(),
    'audit:csv': (a) => s.audit.csv(a),
  }
}
