/**
 * The vault's open format (README.md beside this file, "The format"): a folder of JSON lines in
 * daily files, one event a line, each line a leaf of an RFC 6962 Merkle tree in the order written.
 * This file holds the names of the folder's files and the shape of each event's line.
 */
import { formatSerial } from '../../../game-core/serial'
import { splitUnitKey } from '../../ledger/unit-key'
import { playModeOf, playStatusOf } from '../../ledger/play-codec'

export const VAULT_FORMAT = 'carats-vault/1'
export const VAULT_FILE = 'vault.json'
export const STATE_FILE = 'state.json'
export const CHECKPOINT_FILE = 'checkpoint'
export const CHECKPOINTS_FILE = 'checkpoints.jsonl'
export const EVENTS_DIR = 'events'
export const COSIGNED_DIR = 'cosigned'
export const LOCK_FILE = 'writer.lock'
/** In an export, or a vault purged: the events before its first day file, summed up (export.ts). */
export const START_FILE = 'start.json'

/** The event files: one per day (UTC) on which the vault received events, named by the day. */
export const eventFileName = (day: string) => `${day}.jsonl`
export const EVENT_FILE_PATTERN = /^(\d{4}-\d{2}-\d{2})\.jsonl$/

/** `vault.json`: what the vault belongs to and the key its checkpoints are signed with. */
export interface VaultDescription {
  format: typeof VAULT_FORMAT
  /** The checkpoints' origin line (and the signing key's name): `carats.vault/<ledger id>`. */
  origin: string
  ledger: string
  /** The signed-note verifier key of the checkpoints (name+id+base64 key): compare it with the ledger's. */
  key: string
  created: string
}

export const originOf = (ledgerId: string) => `carats.vault/${ledgerId}`

/** An audit entry as the ledger holds it (audit/context.ts's AuditRow, the columns the vault needs). */
export interface AuditSource {
  seq: number
  at: string
  actor: string
  action: string
  object: string
  details: string
  hash: string
}

/**
 * A sale as the ledger holds it, as a row of values (read raw: a whole block is 8 million rows):
 * unit key, sale id, player's name, time of sale (ms), stake, prize, tier, play code, packed events.
 */
export type SaleSource = [
  unitKey: number,
  saleId: string | null,
  player: string,
  soldAt: number,
  stakeCents: number,
  prizeCents: number,
  tier: number | null,
  play: number | null,
  events: Uint8Array | null,
]

/** An emission's sales as one line of the vault: its code, and the block size its serials are written for. */
export interface SalesOf {
  code: string
  blockSize: number
}

function detailsOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** An audit entry's line: its own fields, its details as JSON, and its hash in the ledger's chain. */
export function auditLine(i: number, at: string, e: AuditSource): string {
  return JSON.stringify({
    i,
    at,
    type: 'audit',
    seq: e.seq,
    entryAt: e.at,
    actor: e.actor,
    action: e.action,
    object: e.object,
    details: detailsOf(e.details),
    hash: e.hash,
  })
}

const text = (v: string | null) => (v === null ? 'null' : JSON.stringify(v))

/** One sale's object in a sales line (built as text: a whole block is 8 million of them). */
function saleJson(s: SaleSource, blockSize: number): string {
  const [unitKey, saleId, player, soldAt, stakeCents, prizeCents, tier, play, events] = s
  const serial = formatSerial(splitUnitKey(unitKey), blockSize)
  const playJson =
    play === null || events === null
      ? 'null'
      : `{"mode":"${playModeOf(play)}","status":"${playStatusOf(play)}","events":"${Buffer.from(
          events.buffer,
          events.byteOffset,
          events.byteLength,
        ).toString('base64')}"}`
  return (
    `{"serial":"${serial}","saleId":${text(saleId)},"player":${text(player)},` +
    `"soldAt":"${new Date(soldAt).toISOString()}","stakeCents":${stakeCents},"prizeCents":${prizeCents},` +
    `"tier":${tier === null ? 'null' : tier},"play":${playJson}}`
  )
}

/**
 * Sales of one emission as one line, in the order they were sold (units sell in order): the
 * emission's code, then each sale: the unit's serial, the platform's sale id, the player, the
 * time of sale, stake and prize in cents, the prize tier, and the play as the ledger packs it
 * (its events in base64: README.md spells it out). A line holds up to SALES_PER_LINE sales: a
 * whole block is some 8,000 leaves of the tree, not 8 million.
 */
export function salesLine(i: number, at: string, of: SalesOf, sales: SaleSource[]): string {
  const each = sales.map((s) => saleJson(s, of.blockSize))
  return `{"i":${i},"at":"${at}","type":"sales","emission":${JSON.stringify(of.code)},"sales":[${each.join(',')}]}`
}

/**
 * After the ledger's log was cut or rewritten below what the vault received (a backup put back,
 * say), `vault resume` writes who put it right and why, the last entry the vault had received, the
 * last both still agree on, and the ledger's last entry: the log is sent again after the agreed
 * one, so entries of those numbers may follow twice, the vault's earlier ones kept before this line.
 */
export interface Resumption {
  by: string
  reason: string
  received: { seq: number; hash: string }
  agreed: { seq: number; hash: string } | null
  ledgerLast: number
}

export const resumedLine = (i: number, at: string, r: Resumption) => JSON.stringify({ i, at, type: 'resumed', ...r })

/** Sales in one line of the vault, at most. */
export const SALES_PER_LINE = 1_000

/** The prefix every line starts with: its index in the log, so a line out of place is named at once. */
export const linePrefix = (i: number) => `{"i":${i},`

/** The UTC day of an ISO time, which names the event file a line goes to. */
export const dayOf = (isoTime: string) => isoTime.slice(0, 10)
