/**
 * The app's services as one set, which the backend builds and the handlers call (backend.ts,
 * handlers.ts).
 */
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import type { AlertsService } from '../services/alerts'
import type { AuditService } from '../services/audit'
import type { Catalog } from '../services/catalog'
import type { ClaimsService, RelatedPartiesService } from '../services/claims'
import type { Clock } from '../services/common'
import type { DemoService } from '../services/demo'
import type { CeremonyService, EmissionsService, PublicationService, Verifications } from '../services/emissions'
import type { ImporterService, ReportsService, SimulatorService } from '../services/extensions'
import type { JobRegistry } from '../services/jobs'
import type { Leases } from '../services/leases'
import type { LedgerOffice, LedgerSettingService } from '../services/ledger-office'
import type { PlayersService } from '../services/players'
import type { SalesService, TicketsService } from '../services/sales'
import type { UsersService } from '../services/staff'
import type { TodoService } from '../services/todo'
import type { VaultService } from '../services/vault'

export interface Services {
  db: Db
  dbPath: string
  clock: Clock
  keys: KeyStore
  catalog: Catalog
  audit: AuditService
  users: UsersService
  jobs: JobRegistry
  /** This workstation's leases of long jobs (leases.ts). */
  leases: Leases
  alerts: AlertsService
  emissions: EmissionsService
  ceremony: CeremonyService
  publication: PublicationService
  verifications: Verifications
  sales: SalesService
  tickets: TicketsService
  players: PlayersService
  simulator: SimulatorService
  importer: ImporterService
  reports: ReportsService
  demo: DemoService
  ledger: LedgerOffice
  parties: RelatedPartiesService
  claims: ClaimsService
  ledgerSetting: LedgerSettingService
  /** The regulator's vault: every event sent apart, as it commits (services/vault). */
  vault: VaultService
  /** The signed-in person's open tasks (services/todo). */
  todo: TodoService
}
