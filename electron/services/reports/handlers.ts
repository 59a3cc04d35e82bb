/** Reports' channels, and the alerts the dashboard shows. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { HandlersOf } from '../common'
import type { AlertsService } from '../alerts'
import type { Reports } from './service'

export function reportsHandlers(s: { reports: Reports; alerts: AlertsService }): HandlersOf<'reports' | 'alerts'> {
  return {
    'reports:depletion': (a) => s.reports.depletion(a),
    'reports:dashboard': (a) => s.reports.dashboard(a),
    'reports:csv': (a) => s.reports.csv(a),
    'reports:liability': (a) => s.reports.liability(a),
    'reports:liabilityCsv': (a) => s.reports.liabilityCsv(a),
    'alerts:list': () => s.alerts.list(),
  }
}
