/**
 * Transport types: what crosses the boundary. Plain data only: money in euro cents (integers),
 * times as ISO 8601 strings, serials as strings. No class instances.
 */
import type { Role } from './define'
import type { ApiErrorData, ErrorReason } from './errors'
import type { ClaimsDashboard } from './claims-types'
import { PLAY_PROBLEM_CODES, type Play } from '../../game-core/play'

export type { Role } from './define'
export type { Play, RevealEvent, PlayMode, PlayStatus, Zone, Gesture } from '../../game-core/play'
export type { UnitProof } from '../../game-core/proof'

export interface UserInfo {
  id: number
  name: string
  role: Role
  active: boolean
  createdAt: string
  /** The last successful sign-in (null: never signed in). */
  lastLoginAt: string | null
}

/** A staff account as the administrator sees it: with its sign-in lockout, if it is locked now. */
export interface UserAccount extends UserInfo {
  /** Sign-ins refused until then, after too many failed attempts (null: not locked). */
  lockedUntil: string | null
  /** Who created the account, raised it to its role, or last set its password for it (null: itself, or before the rule). */
  grantedBy: string | null
  /** Who confirmed its privileged role ('' the system: the first administrator, accounts older than the rule); null: not yet. */
  confirmedBy: string | null
  confirmedAt: string | null
  /** A privileged account (admin, manager, auditor) that takes no part in a two-person step until a second person confirms it. */
  awaitingConfirmation: boolean
  /** Why the account's row is not as the audit log made it (changed outside the app: it cannot sign in); null when sound. */
  recordProblem: string | null
}

export type { AccountProvenance } from './claims-types'

export interface Session {
  token: string
  user: UserInfo
}

export type EmissionStatus = 'created' | 'generating' | 'generated' | 'verified' | 'open' | 'closed' | 'withdrawn'
export type BlockStatus = 'pending' | 'generated' | 'verified' | 'failed'

export interface EmissionSummary {
  emission: number
  code: string
  startsOn: string | null
  status: EmissionStatus
  blocks: number
  blocksGenerated: number
  blocksVerified: number
  unitsTotal: number
  unitsSold: number
  createdAt: string
  withdrawnReason: string | null
  /** A demonstration emission: simulated sales only, marked DÉMO everywhere, out of the dashboard's real figures. */
  demo: boolean
  /** The long task running on this emission, if any. */
  jobId: string | null
  /** When an auditor published the emission's secrets and sales after the game (null: not published). */
  publishedAt: string | null
  publishedBy: string | null
  /** From this prize up, a sold unit's prize is claimed in person (identity checked, payment approved). */
  claimThresholdCents: number
  /** Days after the close during which claims are made and paid; then open claims expire. */
  claimDays: number
  closedAt: string | null
  /** closedAt + claimDays (null while not closed). */
  claimDeadline: string | null
}

export interface BlockSummary {
  emission: number
  block: number
  status: BlockStatus
  commitment: string | null
  /** How the commitment was made (game-core/DERIVATION.md): 1 for older blocks, 2 from then on; version 2 gives unit proofs. */
  commitmentVersion: number
  generatedAt: string | null
  verifiedAt: string | null
  unitsSold: number
  unitsTotal: number
  /** How the block's secret was made: from the emission's key ceremony, or by one person (tests, demonstrations, older blocks). */
  seeding: BlockSeeding
}

export interface TierState {
  amountCents: number
  initial: number
  sold: number
  remaining: number
  /** One remaining prize of this tier in this many remaining units (null when none is left). */
  remainingOddsOneIn: number | null
}

export interface EmissionDetail extends EmissionSummary {
  blockList: BlockSummary[]
  figures: EmissionFigures
}

export interface BlockDetail extends BlockSummary {
  tiers: TierState[]
  losingRemaining: number
}

export interface Certificate {
  emission: number
  code: string
  gameName: string
  definitionId: string
  definitionDigest: string
  unitPriceCents: number
  blockSize: number
  tiers: { amountCents: number; count: number; totalCents: number }[]
  prizesPerBlock: number
  prizeTotalCents: number
  losingUnits: number
  salesPerBlockCents: number
  payoutRatio: number
  oddsOneIn: number
  blocks: {
    block: number
    status: BlockStatus
    commitment: string | null
    generatedAt: string | null
    verifiedAt: string | null
    seeding: BlockSeeding
  }[]
  /** The emission's key ceremony (null: none was held; its blocks are then under single control). */
  ceremony: KeyCeremony | null
  /** Some committed block's secret was drawn by one person alone: printed as "single control". */
  singleControl: boolean
  /** When the commitments were made: the last block's generation (null: no block is committed yet). */
  issuedAt: string | null
  /** Not every block is committed yet: the certificate is provisional. */
  provisional: boolean
  /** The first day of sale (null: none set). */
  startsOn: string | null
  /** From this prize up, a winner claims in person, identity checked (electron/services/claims/README.md). */
  claimThresholdCents: number
  /** Claims are made and paid within this many days of the emission's close. */
  claimDays: number
  /** The whole emission: every block's units, prizes and sales, and the theoretical payout. */
  totals: {
    units: number
    blocks: number
    blocksCommitted: number
    prizes: number
    prizesCents: number
    salesCents: number
    payoutRatio: number
  }
  /** When this copy was printed (the server's clock). */
  printedAt: string
  demo: boolean
  /** The audit log's checkpoint when the certificate was issued (null: none, or the key is missing). */
  auditCheckpoint: { entries: number; head: string; at: string } | null
}

export type BlockSeeding = 'single' | 'two-person'

/**
 * An emission's key ceremony (game-core/DERIVATION.md §1.1): the backend's share drawn and its
 * hash recorded first; then a second person, having seen only that hash, contributes a share of
 * their own. Each block's secret comes from both. The shares themselves are never shown before
 * the emission is published.
 */
/**
 * A key ceremony (DERIVATION.md §1.1). Protocol 2, commit-first: opened (`awaiting-commitment`, no
 * share yet), the custodian commits to SHA-256 of their share and the backend then draws its own
 * (`awaiting-reveal`), the custodian reveals their share (`complete`). Protocol 1, the ceremonies
 * made before: the backend's share first, then the custodian's; one still `awaiting-custodian` is
 * only abandoned now.
 */
export interface KeyCeremony {
  emission: number
  protocol: 1 | 2
  state: 'awaiting-commitment' | 'awaiting-reveal' | 'awaiting-custodian' | 'complete'
  /** SHA-256 of the backend's share, hex (null: not drawn yet, before the custodian's commitment). */
  serverHash: string | null
  startedBy: string
  startedAt: string
  /** Who committed to the second share, the commitment (SHA-256 of their share, hex) and when (protocol 2). */
  committedBy: string | null
  custodianCommit: string | null
  committedAt: string | null
  custodian: string | null
  /** SHA-256 of the custodian's share, hex (protocol 2: the commitment, once the share is revealed). */
  custodianHash: string | null
  /** Drawn in the custodian's window (crypto.getRandomValues), or read from dice. */
  custodianSource: 'random' | 'dice' | null
  /** When the custodian's share came in (protocol 2: revealed). */
  contributedAt: string | null
  /** The emission's ceremonies abandoned before this one, oldest first: each is printed on the certificate. */
  abandoned: AbandonedCeremony[]
}

/** A key ceremony abandoned before it was complete (its custodian never revealed, or it was opened wrongly). */
export interface AbandonedCeremony {
  protocol: 1 | 2
  startedBy: string
  startedAt: string
  serverHash: string | null
  committedBy: string | null
  custodianCommit: string | null
  abandonedBy: string
  abandonedAt: string
  reason: string
}

/** What an emission's sales have brought so far (counters of the ledger, not a scan of the sales). */
export interface EmissionFigures {
  unitsSold: number
  unitsTotal: number
  salesCents: number
  /** Winning units sold, and what they paid. */
  prizesWon: number
  prizesWonCents: number
  /** Prizes won over sales (0 before any sale). */
  realisedPayout: number
  /** The game's: the prize table over the block's sales. */
  theoreticalPayout: number
}

// ---------------------------------------------------------------------------------------------
// verdicts of block verification (services/emissions/verifications.ts)

/** How a verification of an emission ended; `running` until it has (or when its process died). */
export type VerificationOutcome = 'running' | 'sound' | 'unsound' | 'cancelled' | 'failed'

/** One block's verdict: what re-deriving every unit from its secret found. */
export interface BlockVerdict {
  verification: number
  block: number
  sound: boolean
  commitmentRecorded: string | null
  /** The commitment the units re-derive to (null: the block's secret could not be opened). */
  commitmentReproduced: string | null
  commitmentMatches: boolean
  unitsChecked: number
  unitsTotal: number
  /** Units whose record, evaluation or prize disagree. */
  unitsFailed: number
  /** Every tier holds exactly the table's count, and the losing units theirs. */
  prizeTableExact: boolean
  tiers: { amountCents: number; expected: number; found: number }[]
  losingExpected: number
  losingFound: number
  prizeTotalCents: number
  /** The first problems found, in English, as the verifier states them. */
  problems: string[]
  startedAt: string
  endedAt: string
  ms: number
  /** Who verified, and when the verification began. */
  actor: string
}

/** One verification of an emission: who, when, with which software, and how it ended. */
export interface VerificationRun {
  /** The ledger's number for it (the command line's `emission verdict --id`), across every emission. */
  id: number
  /** Its rank among its emission's verifications: 1 for the emission's first (what the screens say). */
  number: number
  emission: number
  actor: string
  role: Role
  software: string
  blocks: number
  blocksChecked: number
  blocksSound: number
  /** The blocks found unsound. */
  unsoundBlocks: number[]
  startedAt: string
  endedAt: string | null
  ms: number | null
  outcome: VerificationOutcome
  /** Why a failed verification stopped (in English). */
  error: string | null
}

/** The latest verdict of each block and the latest verification of the emission. */
export interface EmissionVerdicts {
  emission: number
  latest: VerificationRun | null
  /** Per block, its latest verdict, from whichever verification gave it. */
  blocks: BlockVerdict[]
}

/** A verification as its printable report shows it. */
export interface VerificationReport {
  run: VerificationRun
  emission: {
    emission: number
    code: string
    gameName: string
    definitionDigest: string
    blockSize: number
    demo: boolean
  }
  blocks: BlockVerdict[]
  /** Earlier and later verifications of the emission, newest first. */
  history: VerificationRun[]
  /** The software that prints the report (the one that verified is in `run`). */
  printedBy: string
  asOf: string
}

export type JobKind = 'generate' | 'verify' | 'simulate' | 'demo' | 'backup' | 'ledger-check'
export type JobState = 'running' | 'done' | 'failed' | 'cancelled'

export interface JobInfo {
  id: string
  kind: JobKind
  emission: number | null
  state: JobState
  done: number
  total: number
  /** What is being done now, or why it failed (in English). */
  message: string
  /** Why it failed, for the screens to say in the user's language. */
  reason?: ErrorReason
  startedAt: string
  endedAt: string | null
}

export interface SaleInfo {
  saleId: string
  player: string
  soldAt: string
  stakeCents: number
  prizeCents: number
}

export interface TicketView {
  serial: string
  emission: number
  /** A unit of a demonstration emission (simulated sales): never a real player's ticket. */
  demo: boolean
  block: number
  unit: number
  sold: boolean
  /** Index in the prize table, or null for a losing unit. */
  tier: number | null
  prizeCents: number
  winning: number[]
  numbers: number[]
  amountsCents: number[]
  /** Cells of "your numbers" that match a winning number. */
  matches: number[]
  sale: SaleInfo | null
  play: Play | null
  /** Sold with a prize at or above its emission's claim threshold: the unit has a claim (claims:get). */
  claimDue: boolean
}

export interface PlayerUnit {
  serial: string
  saleId: string
  soldAt: string
  stakeCents: number
  prizeCents: number
  mode: Play['mode'] | null
  status: Play['status'] | null
  /** A unit of a demonstration emission (a simulated sale). */
  demo: boolean
}

export interface PlayerSummary {
  player: string
  units: number
  stakedCents: number
  wonCents: number
  firstSaleAt: string | null
  lastSaleAt: string | null
}

export interface PlayerLast extends PlayerSummary {
  /** The last unit first, then the 9 before it. */
  lastUnits: PlayerUnit[]
  /** Other accounts whose id differs from this one only by case (support says so and lets one be picked). */
  otherCase: string[]
}

/** Which way a list is sorted. */
export type SortOrder = 'asc' | 'desc'
/** What a player's history is sorted by: its place in the player's chain of sales, or the prize. */
export type PlayerHistorySortKey = 'soldAt' | 'prizeCents'
/** Which of a player's units the history lists. */
export type PlayerOutcome = 'all' | 'won' | 'lost'
/** What the audit log's list is sorted by. */
export type AuditSortKey = 'seq' | 'at' | 'actor' | 'action' | 'object'

export interface Page<T> {
  total: number
  page: number
  pageSize: number
  items: T[]
}

export interface DepletionPoint {
  unitsSold: number
  /** Remaining prizes per tier, in table order. */
  remaining: number[]
}

export interface DepletionReport {
  emission: number
  block: number | null
  unitsTotal: number
  unitsSold: number
  tiers: { amountCents: number; initial: number; sold: number; remaining: number }[]
  /** Remaining per tier against units sold: a few hundred points at most. */
  series: DepletionPoint[]
  /** The expected line is initial × (1 − unitsSold / unitsTotal) for each tier. */
  asOf: string
}

export interface Alert {
  kind: 'top-prizes-sold-out'
  emission: number
  block: number | null
  amountCents: number
  message: string
  at: string
}

/** What the dashboard's figures were read under: one emission or all, a range of sale days (UTC, inclusive), demonstrations or not. */
export interface DashboardFilters {
  emission: number | null
  from: string | null
  to: string | null
  includeDemo: boolean
}

/**
 * The managers' figures. The period's figures (units, sales, prizes won, payouts, sales per day)
 * count the sales of the chosen days; the state's (liability, top prizes, depletion) count every
 * sale so far, as of `asOf`, of the chosen emissions.
 */
export interface Dashboard {
  asOf: string
  /** The software that read the figures (package.json). */
  version: string
  filters: DashboardFilters
  /** Whether demonstration emissions' simulated sales are counted (they are not, unless asked or chosen). */
  includesDemo: boolean
  unitsSold: number
  salesCents: number
  prizesWon: number
  prizesWonCents: number
  /** prizes won / sales, as a fraction; null when the period has no sale. */
  realisedPayout: number | null
  theoreticalPayout: number
  /** Prizes still to be won in the units not yet sold of open emissions (a closed one never sells again). */
  remainingLiabilityCents: number
  /** Claims of the dashboard's emissions per status, and the prizes won but not yet paid, as of now (whatever the days). */
  claims: ClaimsDashboard
  topPrizesRemaining: { amountCents: number; remaining: number; initial: number }[]
  salesPerDay: { day: string; units: number; salesCents: number; prizesCents: number }[]
  depletion: { amountCents: number; initial: number; sold: number; remaining: number }[]
  /** Units sold so far and issued, of the emissions the depletion counts (what a uniform spread compares with). */
  depletionUnits: { sold: number; total: number }
  alerts: Alert[]
}

export interface ImportResult {
  lines: number
  imported: number
  alreadyImported: number
}

/** One import of a sales feed, as the ledger's audit log records it (sales.import, sales.import-rejected). */
export interface ImportRecord {
  /** the audit entry's number */
  seq: number
  at: string
  actor: string
  fileName: string | null
  /** of the file's bytes; null in an entry written before the refusals kept it */
  sha256: string | null
  bytes: number | null
  /** lines that are not blank; null when the file was refused before its lines were counted */
  lines: number | null
  /** `already`: every line was imported before, nothing new */
  result: 'imported' | 'already' | 'refused'
  imported: number
  alreadyImported: number
  /** a refusal's bad lines (0 when the file itself was refused: `refusal` says why) */
  badLines: number
  /** why the file itself was refused (an ErrorReasonKey: FEED_NOT_UTF8, FEED_EMPTY, FEED_TOO_LARGE), else null */
  refusal: string | null
  firstSerial: string | null
  lastSerial: string | null
  /** the prize claims the import's sales opened (null: an entry written before they were counted, or a refusal) */
  claims: number | null
  /** a refusal's reasons, grouped (contract/import-reasons.ts); null for an import, or a file refused as a whole */
  reasons: ImportReasons | null
}

/** A sample sales feed made by the app (sales:sampleFeed): a few sales in the feed's format. */
export interface FeedSample {
  fileName: string
  content: string
  /** the emission its units belong to */
  emission: number
  /** true when its units are an open demonstration emission's next ones and it imports as it is; false: the format only */
  importable: boolean
}

/** One kind of problem of a refused feed. */
export interface ImportReasonGroup {
  code: ImportProblemCode
  /** its first occurrence's values (the screens say it in the user's language), text values cut to MAX_REASON_TEXT (import-reasons.ts) */
  params: Record<string, string | number>
  /** its first occurrence in English (the command line's and the log's) */
  text: string
  /** times it was given in the file, and the lines it was given on */
  occurrences: number
  lineCount: number
  /** the first of those lines, at most MAX_REASON_LINES, in file order */
  lines: number[]
}

/** A refused feed's reasons as its history row keeps them. */
export interface ImportReasons {
  /** at most MAX_REASON_GROUPS (import-reasons.ts), in the order their first line comes in the file */
  groups: ImportReasonGroup[]
  /** the groups left out beyond MAX_REASON_GROUPS, and the reasons they held */
  groupsLeft: number
  reasonsLeft: number
  /** false in a row written before the reasons were kept: only its first bad line was */
  complete: boolean
}

/** Why a line of a sales feed is refused: a stable code, and the values its sentence names. */
export const IMPORT_PROBLEM_CODES = [
  'JSON',
  'FIELD_MISSING',
  'FIELD_UNKNOWN',
  'EVENT_FIELDS_UNKNOWN',
  'EVENT_FIELDS_MISSING',
  // a field of the wrong kind or value, as the schema says it ({field}: a dotted path, `play.mode`)
  'FIELD_TYPE', // {field, expected: string|number|object|array|objectOrNull, got: the value as JSON}
  'FIELD_VALUE', // {field, values: the values allowed, as JSON, joined by "|"}
  'TEXT_EMPTY',
  'TEXT_SPACES', // {field}
  'TEXT_TOO_LONG', // {field, max}
  'STAKE_NOT_WHOLE', // {got}
  'EVENTS_TOO_MANY', // {max}
  'SHAPE', // {field, detail}: any other shape the schema refuses (detail in English)
  'SALE_ID_TWICE',
  'SALE_ID_SERIAL',
  'RECORDED_OTHER',
  'SERIAL',
  'EMISSION_UNKNOWN',
  'BLOCK_UNKNOWN',
  'UNIT_BEYOND',
  'UNIT_SOLD',
  'UNIT_TWICE',
  'OUT_OF_ORDER',
  'OUT_OF_ORDER_SOLD_OUT',
  'SOLD_AT_FORMAT',
  'SOLD_AT_FUTURE',
  'SOLD_AT_EARLY',
  'STAKE',
  'NOT_OPEN',
  'BLOCK_NOT_SELLING',
  // {soldAt}: a day or a time that does not exist (2026-02-30T10:00:00Z)
  'SOLD_AT_DATE',
  // {soldAt, emission, createdAt}: before the emission was created, when it has no first sale day
  'SOLD_AT_BEFORE_CREATION',
  // {char, position, problem}: a character the text rule refuses in the player id (contract/text.ts: U+202E, its place from 1;
  // problem: TEXT_PROBLEM_KINDS), or the id is not composed (not-nfc: from that character on)
  'PLAYER_CHARS',
  // {char, position, problem}: the same in the sale id
  'SALE_ID_CHARS',
  // the play's own rules (game-core/play.ts)
  ...PLAY_PROBLEM_CODES,
] as const
export type ImportProblemCode = (typeof IMPORT_PROBLEM_CODES)[number]

export interface ImportProblem {
  code: ImportProblemCode
  params: Record<string, string | number>
}

export interface ImportLineError {
  line: number
  /** Every problem of the line in English, joined by "; " (the command line's and the log's) */
  reason: string
  /** The same problems, for the screens to say in the user's language */
  problems: ImportProblem[]
}

/** Every action the services record in the audit log, for the screens to name in the user's language. */
export const AUDIT_ACTIONS = [
  'auth.setup',
  'auth.login',
  'auth.login-failed',
  'auth.locked',
  'auth.login-failures',
  'auth.logout',
  'auth.password-change',
  'user.create',
  'user.update',
  'user.unlock',
  'emission.create',
  'emission.generate-start',
  'emission.generate-done',
  'emission.generate-cancelled',
  'emission.generate-failed',
  'emission.generate-interrupted',
  'block.generate',
  'emission.verify-start',
  'block.verify',
  'block.verify-failed',
  'emission.verify-done',
  'emission.verify-cancelled',
  'emission.open',
  'emission.close',
  'emission.withdraw',
  'ceremony.start',
  'ceremony.contribute',
  'ceremony.commit',
  'ceremony.reveal',
  'ceremony.abandon',
  'emission.publish',
  'sales.simulate-start',
  'sales.simulate',
  'sales.simulate-cancelled',
  'sales.simulate-failed',
  'sales.import',
  'sales.import-rejected',
  'ticket.inspect-unsold',
  'alert.top-prizes-sold-out',
  'job.cancel',
  'job.interrupted',
  'audit.keyed',
  'audit.reanchored',
  'ledger.backup',
  'ledger.restored',
  'ledger.check',
  'ledger.setting',
  'claim.verify',
  'claim.approve',
  'claim.sign-off',
  'claim.pay',
  'claim.reject',
  'claim.expire',
  'claim.assign',
  'claim.identity-view',
  'party.add',
  'party.remove',
  'user.confirm',
  'ledger.sealed',
  'vault.attached',
  'vault.reconciled',
  'vault.exported',
  'vault.resumed',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditEntry {
  seq: number
  at: string
  actor: string
  /** an AuditAction (a ledger written by a later version may hold others) */
  action: string
  object: string
  details: string
  hash: string
}

/**
 * The log against its checkpoint outside the database file: `ok` (it reaches it exactly),
 * `behind` (entries were written after it, e.g. just before a crash: still sound), `none` (a
 * ledger with no entry yet); the others are failures.
 */
export const AUDIT_CHECKPOINT_STATUSES = [
  'ok',
  'behind',
  'none',
  'missing',
  'altered',
  'other-ledger',
  'cut',
  'rewritten',
] as const
export type AuditCheckpointStatus = (typeof AUDIT_CHECKPOINT_STATUSES)[number]

export interface AuditCheckpointView {
  file: string
  status: AuditCheckpointStatus
  /** What the checkpoint records, when it could be read and authenticated. */
  entries: number | null
  head: string | null
  at: string | null
  /** Why it fails, in English. */
  problem: string | null
}

export interface AuditVerification {
  ok: boolean
  entries: number
  /** The first entry whose hash chain breaks, with why (bad[0]). */
  firstBad: { seq: number; reason: string } | null
  /**
   * Every entry that breaks the chain, in order, up to AUDIT_BAD_LISTED: the check goes on past a
   * broken entry, taking each entry's own links, so that an altered entry is named alone and a
   * first break hides no later one.
   */
  bad: { seq: number; reason: string }[]
  /** How many entries break the chain (bad may list fewer). */
  badCount: number
  /** The entry from which each link is an HMAC under the ledger's key (null: not keyed yet). */
  keyedFrom: number | null
  checkpoint: AuditCheckpointView
  /** The log against its vault (electron/services/vault): null when the ledger has none. */
  vault: VaultComparison | null
}

/** A witness's last cosignature, as the vault keeps it, against the vault's history. */
export interface WitnessSeen {
  witness: string
  /** The events it cosigned, and when (its cosignature's time). */
  size: number
  at: string | null
  problem: string | null
}

/** The ledger held against its vault: a cut or rewritten log, removed sales, a rolled back vault, each named. */
export interface VaultComparison {
  folder: string
  ok: boolean
  /** The events the vault's latest checkpoint signs. */
  size: number
  problems: string[]
  witnesses: WitnessSeen[]
}

/** Units, stakes and prizes (cents) of one source in a reconciliation's row; the feed knows no prizes. */
export interface ReconSums {
  units: number
  stakeCents: number
  prizeCents: number | null
}

/** One emission, block and prize tier of a day's sales, in each source (the feed's tier is the ledger's for its units). */
export interface ReconRow {
  emission: string
  block: number
  /** null: no prize; the tier's number otherwise ('?' when only the feed holds the unit). */
  tier: number | '?' | null
  ledger: ReconSums
  vault: ReconSums
  feed: ReconSums | null
}

export const RECON_PROBLEMS = [
  'not-in-ledger',
  'not-in-vault',
  'not-sent-yet',
  'not-in-feed',
  'differs',
  'outside-day',
  'unreadable',
] as const
export type ReconProblem = (typeof RECON_PROBLEMS)[number]

/** A unit that one source lacks or differs on, named by serial (or a feed line that could not be read). */
export interface ReconDifference {
  serial: string | null
  problem: ReconProblem
  /** The fields that differ, or what the line holds that is wrong. */
  detail: string
  /** The feed's line, when the feed holds it. */
  feedLine: number | null
}

/** A day's sales held three ways: the ledger, its vault, and (when given) the sales platform's feed. */
export interface ReconciliationReport {
  day: string
  at: string
  ok: boolean
  feed: { fileName: string | null; sha256: string; lines: number } | null
  rows: ReconRow[]
  totals: { ledger: ReconSums; vault: ReconSums; feed: ReconSums | null }
  differences: ReconDifference[]
  differenceCount: number
  /** The audit entry that sealed the result (it reaches the vault like every entry). */
  sealedAs: number | null
}

/** One cosignature the vault keeps, checked with its witness's key. */
export interface CosignedRead {
  witness: string
  size: number
  root: string
  /** The cosignature's time (ISO), when it holds. */
  at: string | null
  problem: string | null
}

/** An event's inclusion in the vault, proved against its latest checkpoint (RFC 6962 audit path). */
export interface VaultInclusion {
  event: number
  line: string
  size: number
  root: string
  path: string[]
  ok: boolean
}

/** A vault checked from its files and public key alone (services/vault/verify.ts). */
export interface VaultVerification {
  ok: boolean
  folder: string
  origin: string
  ledger: string
  /** The verifier key the checkpoints were checked with, and whether it was given or read from vault.json. */
  key: string
  keyFrom: 'given' | 'vault.json'
  events: number
  /** The first event its files hold (0 but in an export or a purged vault: start.json). */
  firstEvent: number
  checkpoints: number
  latest: { size: number; at: string | null } | null
  /** Lines written after the latest checkpoint (a round cut short): not yet signed, not a failure. */
  unsigned: number
  witnesses: CosignedRead[]
  problems: string[]
  problemCount: number
  inclusion: VaultInclusion | null
}

/** One event of the vault as the regulator's screen lists it: its place, when it was received, and its line. */
export interface VaultEventView {
  i: number
  at: string
  type: string
  /** The serial (a sale) or the action and object (an audit entry). */
  what: string
  line: string
}

/** A ledger's vault as the app sees it: where, how much it holds, and how far behind the ledger it is. */
export interface VaultStatus {
  attached: boolean
  folder: string | null
  /** The lines the vault holds (the tree's leaves: an audit entry, or up to 1,000 sales), and when its last checkpoint was signed. */
  size: number
  signedAt: string | null
  /** What those lines hold: the sales, and the audit log's entries up to this one. */
  received: { sales: number; entries: number }
  /** What the ledger holds and the vault does not yet. */
  behind: { entries: number; sales: number; oldestEntryAt: string | null }
  /** Another process sends in this one's place (it holds the vault's writer lock). */
  writtenBy: string | null
  /** Why the last round could not send (the vault unreachable …), since when. */
  problem: { message: string; since: string } | null
  /**
   * The ledger's audit log no longer extends the last entry the vault received (cut or rewritten):
   * what became of it. Its entries are not sent until an auditor has looked (`audit verify`).
   */
  logDiverged: string | null
  /** The signed-note verifier key of the checkpoints, for a witness or a regulator. */
  verifierKey: string | null
}

export interface CsvFile {
  fileName: string
  content: string
}

/** An export's form: `office` for a spreadsheet in the interface's language, `machine` for programs (docs/ui.md). */
export const CSV_FORMS = ['office', 'machine'] as const
export type CsvFormName = (typeof CSV_FORMS)[number]
export const CSV_LOCALES = ['fr', 'en'] as const

// ---------------------------------------------------------------------------------------------
// the ledger as a system of record: its check, backups and restores

export const LEDGER_PROBLEM_KINDS = [
  'BLOCK_UNITS_SOLD',
  'UNIT_GAP',
  'UNKNOWN_UNIT',
  'TIER_SOLD',
  'PLAYER_TOTALS',
  'PLAYER_CHAIN',
  'DAY_TOTALS',
  'PRIZE_MISMATCH',
  'TIER_MISMATCH',
  // claims against the sales at or above their emission's threshold (ledger-office/check-claims.ts)
  'CLAIM_MISSING',
  'CLAIM_WITHOUT_SALE',
  'CLAIM_MISMATCH',
  // a block's prize liability that does not add up to its prize table (ledger-office/check-liability.ts)
  'LIABILITY_GAP',
] as const
export type LedgerProblemKind = (typeof LEDGER_PROBLEM_KINDS)[number]

/** The row a problem concerns: a unit (serial), a block or its tier, a player, or a day of an emission. */
export interface LedgerProblemRow {
  emission?: number
  block?: number
  /** index in the emission's prize table (null: losing) */
  tier?: number | null
  serial?: string
  unitKey?: number
  player?: string
  playerId?: number
  /** UTC day, YYYY-MM-DD */
  day?: string
}

export interface LedgerProblem {
  kind: LedgerProblemKind
  row: LedgerProblemRow
  /** the stored column that disagrees */
  field: string
  stored: number | string | null
  recomputed: number | string | null
  /** what disagrees, in English */
  message: string
}

export interface LedgerDataCheck {
  ok: boolean
  salesRows: number
  /** sold units whose tier and prize were re-derived from their block's secret */
  unitsRederived: number
  /** at most 50 of each kind */
  problems: LedgerProblem[]
  /** all the problems found, listed or not */
  problemCount: number
  problemsByKind: Partial<Record<LedgerProblemKind, number>>
  /** The blocks whose credited + paid + outstanding + expired + void + unsold prizes were held against their prize table. */
  liability: { blocks: number; tableCents: number; balanced: boolean }
}

export interface LedgerCheckReport {
  ok: boolean
  at: string
  seconds: number
  /**
   * The engine's own check: on SQLite its integrity_check ('ok', or its first messages); on
   * PostgreSQL what was checked instead (schema, objects, amcheck), or the problems found
   */
  integrity: { engine: 'sqlite' | 'postgres'; ok: boolean; messages: string[] }
  audit: AuditVerification
  /** The security-relevant rows (accounts, claims, register, emissions, ceremonies) the audit log does not account for */
  records: RecordsCheck
  data: LedgerDataCheck
}

/** One row the audit log does not account for: changed, added or put back outside the app. */
export interface RecordFinding {
  kind: 'user' | 'claim' | 'party' | 'emission' | 'ceremony' | 'ledger'
  key: string
  /** the row as people know it: `account 7 "mallory" (admin)` */
  row: string
  problem: string
}

export interface RecordsCheck {
  /** rows checked */
  rows: number
  findings: RecordFinding[]
}

export interface BackupReport {
  file: string
  keyFile: string
  checkpointFile: string
  bytes: number
  at: string
  /** the copy's own check: integrity, audit chain against the ledger's checkpoint, counters */
  check: LedgerCheckReport
}

export interface RestoreReport {
  backup: string
  /** where the ledger that was in place was moved, if there was one */
  movedAside: string | null
  check: LedgerCheckReport
}

/** What the audit log keeps of a whole check (ledger.check entries). */
export interface LedgerCheckSummary {
  ok: boolean
  /** rows the audit log does not account for (checks from migration 13 on) */
  records?: number
  seconds: number
  integrity: boolean
  audit: boolean
  checkpoint: AuditCheckpointStatus
  salesRows: number
  unitsRederived: number
  problems: number
}

export interface LedgerStatus {
  path: string
  ledgerId: string
  /** the first 16 hex digits of the key's fingerprint, null when the key cannot be used */
  keyFingerprint: string | null
  keyProblem: ApiErrorData | null
  /** null when the key is missing (the keyed chain cannot be checked without it) */
  audit: AuditVerification | null
  lastCheck: ({ at: string; actor: string } & LedgerCheckSummary) | null
  /** the last whole check run by this app since it started, with every disagreement */
  lastReport: LedgerCheckReport | null
  backups: ({ at: string; actor: string; file: string; bytes: number } & LedgerCheckSummary)[]
  backupFolder: string
}
