/**
 * The contract between the renderer and the backend: every channel, its argument schema (checked
 * at run time before any service runs), who may call it, and its result type. The Electron
 * handlers, the preload, the browser host and the renderer's api client all derive from it:
 * adding a channel is one entry here plus its handler.
 */
import './zod-jitless'
import { z } from 'zod'
import { channel, ROLES } from './define'
import type * as T from './types'
import type * as C from './claims-types'
import type * as L from './liability-types'
import type { TodoList } from './todo-types'
import { CSV_FORMS, CSV_LOCALES } from './types'
import { CLAIM_STATUSES, IDENTITY_DOCUMENTS, MAX_CLAIM_DAYS, PAYMENT_METHODS, RELATIONS } from './claims-types'
import { dayRangeProblem } from './dates'
import { isoDay } from './day-schema'
import { cleanText } from './text-schema'
import { ledgerSettingSchema, teamLedger, type LedgerSettingView, type LedgerTestResult } from './ledger-setting'
import { vaultChannels } from './vault'

export * from './types'
export * from './claims-types'
export * from './liability-types'
export * from './todo-types'
export * from './changes'
export * from './errors'
export * from './feed'
export * from './import-reasons'
export * from './ledger-setting'
export { ROLES, type Role } from './define'

const emissionNo = z.number().int().min(1).max(9999)
const blockNo = z.number().int().min(1).max(999)
const page = z.number().int().min(1).default(1)
const pageSize = z.number().int().min(1).max(500).default(50)
/** Newest (largest) first unless asked otherwise. */
const sortOrder = z.enum(['asc', 'desc']).default('desc')
/** Every text stored or logged goes through the text rule (text.ts): refused characters named, then composed (NFC). */
const name = cleanText(z.string().trim().min(1, 'must not be empty').max(64), { what: 'a name' })
const password = z.string().min(8, 'must have at least 8 characters').max(256)
const reason = cleanText(z.string().trim().min(3, 'give a reason of at least 3 characters').max(500), {
  what: 'a reason',
  multiline: true,
})
/** A short text (a code, a reference, a filter): one line under the text rule. */
const line = (s: z.ZodString, what: string) => cleanText(s, { what })
/** A player id: the text rule, as the sales feed's player ids (which the feed must send composed). */
const playerText = (s: z.ZodString) => cleanText(s, { what: 'a player id' })
const playerId = playerText(z.string().trim().min(1, 'must not be empty').max(64))
/** An audit log's filter. */
const filterText = line(z.string().max(64), 'a filter').optional()
/** A day of the calendar, read by the app's one date reader (dates.ts): 2026-02-30 is refused, not rolled over. */

/** A range of days, either end optional, its first day on or before its last. */
const dayRange = <S extends z.ZodRawShape>(shape: S) =>
  z
    .object({ ...shape, from: isoDay.optional(), to: isoDay.optional() })
    .strict()
    .superRefine((a, ctx) => {
      const { from, to } = a as { from?: string; to?: string }
      const problem = dayRangeProblem(from, to)
      if (problem) ctx.addIssue({ code: 'custom', path: ['to'], message: problem })
    })
/** How an export is written (docs/ui.md): for a spreadsheet in the interface's language, or for programs. */
const csvStyle = { form: z.enum(CSV_FORMS).default('machine'), locale: z.enum(CSV_LOCALES).default('fr') }

const staff = ['admin', 'operator', 'support', 'manager', 'auditor'] as const
const operators = ['admin', 'operator'] as const
/** Who may be the key ceremony's second person. */
const custodians = ['admin', 'operator', 'manager', 'auditor'] as const
const readers = ['admin', 'operator', 'manager', 'auditor'] as const
/** Who sees claims: not operators, whose work is emissions and feeds. */
const claimsReaders = ['admin', 'support', 'manager', 'auditor'] as const
/** Who reads what the lottery owes: finance is the managers', checked by auditors. */
const financeReaders = ['admin', 'manager', 'auditor'] as const
const serial = line(z.string().trim().min(1, 'must not be empty').max(40), 'a serial')

/** A file's bytes, as the screen sends them (structured clone over IPC, the request's body over HTTP). */
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'must be the file’s bytes or its text')

export const contract = {
  // sign-in and the first-start admin account
  'auth:status': channel<{ needsSetup: boolean; user: T.UserInfo | null }>()({
    ledger: 'host-reads',
    args: z.object({}).strict(),
    access: 'public',
  }),
  'auth:setup': channel<T.Session>()({ args: z.object({ name, password }).strict(), access: 'public' }),
  'auth:login': channel<T.Session>()({
    args: z.object({ name, password: z.string().min(1, 'must not be empty').max(256) }).strict(),
    access: 'public',
  }),
  'auth:logout': channel<{ ok: true }>()({ ledger: 'writes', args: z.object({}).strict(), access: 'signed-in' }),
  /** The caller's own password, the current one required (a wrong one counts as a failed sign-in). */
  'auth:changePassword': channel<{ ok: true }>()({
    args: z.object({ oldPassword: z.string().min(1, 'must not be empty').max(256), newPassword: password }).strict(),
    access: 'signed-in',
  }),

  // emissions and blocks
  'emissions:list': channel<T.EmissionSummary[]>()({
    ledger: 'host-reads',
    args: z.object({}).strict(),
    access: staff,
  }),
  'emissions:get': channel<T.EmissionDetail>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo }).strict(),
    access: staff,
  }),
  'emissions:create': channel<T.EmissionSummary>()({
    args: z
      .object({
        blocks: z.number().int().min(1).max(999),
        code: line(z.string().trim().max(32), 'a code').optional(),
        startsOn: isoDay.optional(),
        /** A demonstration emission, the only kind that takes simulated sales. */
        demo: z.boolean().default(false),
        /** From this prize up, claimed in person (default 500,000 cents: 5,000 €); whole euros, at most the top prize. */
        claimThresholdCents: z.number().int().min(100).optional(),
        /** Days after the emission's close during which a claim may be made and paid (default 30). */
        claimDays: z.number().int().min(1).max(MAX_CLAIM_DAYS).optional(),
      })
      .strict(),
    access: operators,
  }),
  'emissions:generate': channel<T.JobInfo>()({ args: z.object({ emission: emissionNo }).strict(), access: operators }),
  'emissions:verify': channel<T.JobInfo>()({
    args: z.object({ emission: emissionNo }).strict(),
    access: ['admin', 'operator', 'auditor'],
  }),
  'emissions:open': channel<T.EmissionSummary>()({
    args: z.object({ emission: emissionNo }).strict(),
    access: operators,
  }),
  'emissions:close': channel<T.EmissionSummary>()({
    args: z.object({ emission: emissionNo }).strict(),
    access: operators,
  }),
  'emissions:withdraw': channel<T.EmissionSummary>()({
    args: z.object({ emission: emissionNo, reason }).strict(),
    access: operators,
  }),
  'emissions:certificate': channel<T.Certificate>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo }).strict(),
    access: staff,
  }),
  /** One click: an emission of one block, generated, verified, opened, with a simulated sales history. */
  'emissions:demo': channel<T.JobInfo>()({
    args: z.object({ sales: z.number().int().min(1).max(8_016_000).default(200_000) }).strict(),
    access: operators,
  }),
  /** The emission's key ceremony, or null when none was started. */
  'ceremony:get': channel<T.KeyCeremony | null>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo }).strict(),
    access: staff,
  }),
  /** Opens the emission's key ceremony (no share is drawn yet): then a second person commits to their share. */
  'ceremony:start': channel<T.KeyCeremony>()({ args: z.object({ emission: emissionNo }).strict(), access: operators }),
  /**
   * The second person commits to their share: its SHA-256, before the backend's share exists. The backend then draws
   * its share and records its hash, in the same transaction.
   */
  'ceremony:commit': channel<T.KeyCeremony>()({
    args: z
      .object({
        emission: emissionNo,
        commitment: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits (SHA-256)'),
      })
      .strict(),
    access: custodians,
  }),
  /** The same person reveals the share committed to: 32 bytes drawn in their window (hex), or at least 100 rolls of a die. */
  'ceremony:reveal': channel<T.KeyCeremony>()({
    args: z
      .object({
        emission: emissionNo,
        share: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits (32 bytes)')
          .optional(),
        dice: z.string().max(2000).optional(),
      })
      .strict()
      .refine(
        (a) => (a.share === undefined) !== (a.dice === undefined),
        'give either share (drawn in your window) or dice (your rolls), not both',
      ),
    access: custodians,
  }),
  /** An incomplete ceremony abandoned, with a reason (its custodian never revealed): kept, and counted on the certificate. */
  'ceremony:abandon': channel<T.KeyCeremony | null>()({
    args: z.object({ emission: emissionNo, reason }).strict(),
    access: operators,
  }),
  'blocks:get': channel<T.BlockDetail>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo, block: blockNo }).strict(),
    access: staff,
  }),
  /** Each block's latest verdict and the emission's latest verification. */
  'verifications:latest': channel<T.EmissionVerdicts>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo }).strict(),
    access: staff,
  }),
  /** A verification's printable report (default: the latest that gave a verdict), with the emission's history. */
  'verifications:report': channel<T.VerificationReport>()({
    ledger: 'host-reads',
    args: z.object({ emission: emissionNo, verification: z.number().int().min(1).optional() }).strict(),
    access: staff,
  }),

  // long tasks
  'jobs:get': channel<T.JobInfo>()({
    ledger: 'host-reads',
    args: z.object({ jobId: z.string().min(1) }).strict(),
    access: staff,
  }),
  'jobs:list': channel<T.JobInfo[]>()({ ledger: 'host-reads', args: z.object({}).strict(), access: staff }),
  'jobs:cancel': channel<T.JobInfo>()({
    args: z.object({ jobId: z.string().min(1) }).strict(),
    access: ['admin', 'operator', 'auditor'],
  }),

  // sales
  'sales:simulate': channel<T.JobInfo>()({
    args: z
      .object({
        emission: emissionNo,
        sales: z.number().int().min(1).max(100_000_000),
        players: z.number().int().min(1).max(10_000_000).optional(),
        seed: z.number().int().min(0).optional(),
      })
      .strict(),
    access: operators,
  }),
  /**
   * A JSONL sales feed, imported whole or not at all (IMPORT_REJECTED lists every bad line in
   * details): the file's bytes (the screen), or its text. At most FEED_MAX_BYTES.
   */
  // sha256: the file's, as the screen made it before sending (an upload is leased by it while its bytes arrive)
  'sales:import': channel<T.ImportResult>()({
    ledger: 'worker',
    args: z
      .object({
        content: z.union([z.string(), bytes]),
        fileName: line(z.string().max(260), 'a file name').optional(),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .optional(),
      })
      .strict(),
    access: operators,
  }),
  /** The imports of sales feeds, latest first, from the audit log: imported, already recorded, or refused. */
  'sales:imports': channel<T.Page<T.ImportRecord>>()({
    ledger: 'reads',
    args: z.object({ page, pageSize }).strict(),
    access: readers,
  }),
  /** A refused import's reasons, grouped by kind (contract/import-reasons.ts), as a CSV file: `seq` is its history row's. */
  'sales:importReasonsCsv': channel<T.CsvFile>()({
    ledger: 'reads',
    args: z.object({ seq: z.number().int().min(1), ...csvStyle }).strict(),
    access: readers,
  }),
  /** A sample feed in the feed's format: the next units of an open demonstration emission, else the format only. */
  'sales:sampleFeed': channel<T.FeedSample>()({
    ledger: 'reads',
    args: z.object({}).strict(),
    access: operators,
  }),

  // tickets and players
  /** Any unit by serial. An unsold unit's content needs the auditor role and a reason, and is logged. */
  'tickets:get': channel<T.TicketView>()({
    ledger: 'reads',
    args: z.object({ serial: z.string().max(40), reason: reason.optional() }).strict(),
    access: staff,
  }),
  /** The unit's proof of inclusion in its block's commitment (game-core/DERIVATION.md §8): as tickets:get, an unsold unit only for an auditor with a reason, audited. */
  'tickets:proof': channel<T.UnitProof>()({
    ledger: 'reads',
    args: z.object({ serial: z.string().max(40), reason: reason.optional() }).strict(),
    access: staff,
  }),
  /** Accounts whose id starts with `query`, ignoring case (ASCII letters), a page at a time with their count. */
  'players:search': channel<T.Page<T.PlayerSummary>>()({
    ledger: 'reads',
    args: z
      .object({
        query: playerText(z.string().trim().max(64)),
        page,
        pageSize: z.number().int().min(1).max(100).default(20),
      })
      .strict(),
    access: ['admin', 'support', 'manager', 'auditor'],
  }),
  /** By id ignoring case; ids that differ only by case are refused as ambiguous (CONFLICT, PLAYER_AMBIGUOUS) unless one is the id exactly. */
  'players:last': channel<T.PlayerLast>()({
    ledger: 'reads',
    args: z.object({ player: playerId }).strict(),
    access: ['admin', 'support', 'auditor'],
  }),
  'players:history': channel<T.Page<T.PlayerUnit>>()({
    ledger: 'reads',
    args: z
      .object({
        player: playerId,
        page,
        pageSize,
        sort: z.enum(['soldAt', 'prizeCents']).default('soldAt'),
        order: sortOrder,
        outcome: z.enum(['all', 'won', 'lost']).default('all'),
      })
      .strict(),
    access: ['admin', 'support', 'auditor'],
  }),

  // reports
  'reports:depletion': channel<T.DepletionReport>()({
    ledger: 'reads',
    args: z.object({ emission: emissionNo, block: blockNo.optional() }).strict(),
    access: readers,
  }),
  /** One emission or all, the sale days from…to (UTC, inclusive). */
  'reports:dashboard': channel<T.Dashboard>()({
    ledger: 'reads',
    args: dayRange({ includeDemo: z.boolean().default(false), emission: emissionNo.optional() }),
    access: readers,
  }),
  /** What the lottery owes, per emission, block and tier: now, or at the end of a past day (UTC). */
  'reports:liability': channel<L.LiabilityReport>()({
    ledger: 'reads',
    args: z
      .object({ emission: emissionNo.optional(), asOf: isoDay.optional(), includeDemo: z.boolean().default(false) })
      .strict(),
    access: financeReaders,
  }),
  /** The liability report as a CSV file: a row per emission, block and tier, then the total. */
  'reports:liabilityCsv': channel<T.CsvFile>()({
    ledger: 'reads',
    args: z
      .object({
        emission: emissionNo.optional(),
        asOf: isoDay.optional(),
        includeDemo: z.boolean().default(false),
        ...csvStyle,
      })
      .strict(),
    access: financeReaders,
  }),
  'reports:csv': channel<T.CsvFile>()({
    ledger: 'reads',
    args: z.union([
      z
        .object({ report: z.literal('depletion'), emission: emissionNo, block: blockNo.optional(), ...csvStyle })
        .strict(),
      // the dashboard's sales per day and emission, or its prize tiers, under its filters
      dayRange({
        report: z.enum(['dashboard', 'dashboard-tiers']),
        includeDemo: z.boolean().default(false),
        emission: emissionNo.optional(),
        ...csvStyle,
      }),
    ]),
    access: readers,
  }),
  'alerts:list': channel<T.Alert[]>()({ ledger: 'reads', args: z.object({}).strict(), access: staff }),

  // prize claims (electron/services/claims/README.md) and the register of related parties
  'claims:list': channel<C.ClaimsPage>()({
    ledger: 'reads',
    args: z
      .object({
        status: z.enum(CLAIM_STATUSES).optional(),
        emission: emissionNo.optional(),
        player: playerId.optional(),
        order: z.enum(['asc', 'desc']).default('desc'),
        page,
        pageSize,
      })
      .strict(),
    access: claimsReaders,
  }),
  'claims:get': channel<C.ClaimDetail>()({
    ledger: 'reads',
    args: z.object({ serial }).strict(),
    access: claimsReaders,
  }),
  /**
   * The claims paid with a payment reference, matched exactly as recorded (after trimming, case
   * included): their serials. A reference pays one claim, so at most one (the unique index
   * claims_payment_ref finds it).
   */
  'claims:find': channel<string[]>()({
    ledger: 'reads',
    args: z.object({ reference: line(z.string().trim().min(1, 'must not be empty').max(64), 'a reference') }).strict(),
    access: claimsReaders,
  }),
  /** Support records the winner's identity check. */
  'claims:verify': channel<C.Claim>()({
    ledger: 'writes',
    args: z
      .object({
        serial,
        identity: z
          .object({
            document: z.enum(IDENTITY_DOCUMENTS),
            reference: line(
              z.string().trim().min(4, 'give the document’s number (at least 4 characters)').max(64),
              'a reference',
            ),
            /** The winner's name and date of birth as on the document (the screens ask for both). */
            name: line(z.string().trim().min(2, 'give the winner’s name').max(120), 'a name').optional(),
            birthDate: isoDay.optional(),
          })
          .strict(),
      })
      .strict(),
    access: ['admin', 'support'],
  }),
  /** A manager, never the person who verified. */
  'claims:approve': channel<C.Claim>()({ ledger: 'writes', args: z.object({ serial }).strict(), access: ['manager'] }),
  /** An auditor signs off a related party's claim (besides the manager's approval). */
  'claims:signOff': channel<C.Claim>()({ ledger: 'writes', args: z.object({ serial }).strict(), access: ['auditor'] }),
  'claims:pay': channel<C.Claim>()({
    ledger: 'writes',
    args: z
      .object({
        serial,
        reference: line(
          z.string().trim().min(3, 'give the payment’s reference (at least 3 characters)').max(64),
          'a reference',
        ),
        /** How it was paid (the screens ask; left out: not recorded). */
        method: z.enum(PAYMENT_METHODS).optional(),
      })
      .strict(),
    access: ['admin', 'manager'],
  }),
  /** A manager or an administrator gives the claim to a staff member to handle (support, manager or admin). */
  'claims:assign': channel<C.Claim>()({
    ledger: 'writes',
    args: z.object({ serial, to: line(z.string().trim().min(1).max(64), 'a name') }).strict(),
    access: ['admin', 'manager'],
  }),
  /** The winner's identity whole: an auditor's look, with a reason, logged. */
  'claims:identity': channel<C.WinnerIdentity>()({
    ledger: 'writes',
    args: z.object({ serial, reason }).strict(),
    access: ['auditor'],
  }),
  'claims:reject': channel<C.Claim>()({
    ledger: 'writes',
    args: z.object({ serial, reason }).strict(),
    access: ['admin', 'support', 'manager', 'auditor'],
  }),
  'claims:csv': channel<T.CsvFile>()({
    ledger: 'reads',
    args: z
      .object({
        status: z.enum(CLAIM_STATUSES).optional(),
        emission: emissionNo.optional(),
        player: playerId.optional(),
        ...csvStyle,
      })
      .strict(),
    access: claimsReaders,
  }),
  /** Every claim still open past its emission's claim deadline marked expired now (also run at start-up and daily). */
  'claims:expire': channel<C.ExpiryResult>()({
    ledger: 'writes',
    args: z.object({}).strict(),
    access: ['admin', 'manager'],
  }),
  /** Open claims within 30 days of their emission's claim deadline, nearest first (notices at 30, 7 and 1 day). */
  'claims:deadlines': channel<C.ClaimDeadlineNotice[]>()({
    ledger: 'reads',
    args: z.object({}).strict(),
    access: claimsReaders,
  }),
  /** Claimants' figures: one player's (flagged or not), or every flagged player's, least probable first. */
  'claims:flags': channel<C.WinnerFigures[]>()({
    ledger: 'reads',
    args: z.object({ player: playerId.optional() }).strict(),
    access: claimsReaders,
  }),
  'parties:list': channel<C.RelatedParty[]>()({
    ledger: 'reads',
    args: z.object({ includeRemoved: z.boolean().default(false) }).strict(),
    access: claimsReaders,
  }),
  'parties:add': channel<C.RelatedParty>()({
    ledger: 'writes',
    args: z.object({ player: playerId, relation: z.enum(RELATIONS), linkedTo: name, reason }).strict(),
    access: ['admin', 'auditor'],
  }),
  'parties:remove': channel<C.RelatedParty>()({
    ledger: 'writes',
    args: z.object({ id: z.number().int().min(1), reason }).strict(),
    access: ['admin', 'auditor'],
  }),

  // users and the audit log
  /** Auditors read the accounts too: they confirm privileged ones. */
  'users:list': channel<T.UserAccount[]>()({
    ledger: 'host-reads',
    args: z.object({}).strict(),
    access: ['admin', 'auditor'],
  }),
  'users:create': channel<T.UserAccount>()({
    args: z.object({ name, role: z.enum(ROLES), password }).strict(),
    access: ['admin'],
  }),
  'users:update': channel<T.UserAccount>()({
    args: z
      .object({
        userId: z.number().int().min(1),
        role: z.enum(ROLES).optional(),
        active: z.boolean().optional(),
        password: password.optional(),
      })
      .strict(),
    access: ['admin'],
  }),
  /** Lifts an account's sign-in lockout and forgets its failed attempts (audited). */
  'users:unlock': channel<T.UserAccount>()({
    args: z.object({ userId: z.number().int().min(1) }).strict(),
    access: ['admin'],
  }),
  /** A second person (another administrator, or an auditor) confirms a privileged account before it takes any two-person step. */
  'users:confirm': channel<T.UserAccount>()({
    args: z.object({ userId: z.number().int().min(1) }).strict(),
    access: ['admin', 'auditor'],
  }),
  'audit:list': channel<T.Page<T.AuditEntry>>()({
    ledger: 'reads',
    args: z
      .object({
        page,
        pageSize,
        sort: z.enum(['seq', 'at', 'actor', 'action', 'object']).default('seq'),
        order: sortOrder,
        actor: filterText,
        action: filterText,
        object: filterText,
        from: isoDay.optional(),
        to: isoDay.optional(),
      })
      .strict(),
    access: ['admin', 'auditor'],
  }),
  'audit:verify': channel<T.AuditVerification>()({
    ledger: 'reads',
    args: z.object({}).strict(),
    access: ['admin', 'auditor'],
  }),
  'audit:csv': channel<T.CsvFile>()({
    ledger: 'reads',
    args: z
      .object({
        actor: filterText,
        action: filterText,
        object: filterText,
        from: isoDay.optional(),
        to: isoDay.optional(),
        ...csvStyle,
      })
      .strict(),
    access: ['admin', 'auditor'],
  }),

  // the ledger as a system of record
  'ledger:status': channel<T.LedgerStatus>()({
    ledger: 'host-reads',
    args: z.object({}).strict(),
    access: ['admin', 'auditor'],
  }),
  /** The whole check on a worker thread: integrity, audit chain and checkpoint, counters, every sold unit's prize re-derived. */
  'ledger:check': channel<T.JobInfo>()({
    args: z.object({ prizes: z.boolean().default(true) }).strict(),
    access: ['admin', 'auditor'],
  }),
  /** A checked backup, with its key and checkpoint, into the backups folder beside the ledger. */
  'ledger:backup': channel<T.JobInfo>()({ args: z.object({}).strict(), access: ['admin'] }),

  // this workstation's ledger setting (ledger.json in the per-user data folder; applies at the next start)
  'settings:ledger': channel<LedgerSettingView>()({
    ledger: 'host-reads',
    args: z.object({}).strict(),
    access: ['admin'],
  }),
  /** Saves the setting; a team URL's masked password (***) keeps the saved one. */
  'settings:ledgerSet': channel<LedgerSettingView>()({ args: ledgerSettingSchema, access: ['admin'] }),
  /** Tries a team ledger: the server, the database (empty or a ledger this app opens), the key file. */
  'settings:ledgerTest': channel<LedgerTestResult>()({ args: teamLedger, access: ['admin'] }),

  /** The caller's open tasks for their role (services/todo): claims awaiting their step, ceremonies, deadlines, refused imports. */
  'todo:list': channel<TodoList>()({ ledger: 'reads', args: z.object({}).strict(), access: staff }),

  ...vaultChannels,
} as const

export type Contract = typeof contract
export type ChannelName = keyof Contract
export const CHANNEL_NAMES = Object.keys(contract) as ChannelName[]
