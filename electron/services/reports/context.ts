/**
 * The types the reports' parts share (README.md beside this file).
 */
import type { Db } from '../../ledger/db'
import type { AlertsService } from '../alerts'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'

/** What the reports read from: the ledger, the clock, the catalog, and the alerts raised as blocks sell. */
export interface ReportsDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  alerts: AlertsService
}
