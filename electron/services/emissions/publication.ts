/**
 * Publication after the game (game-core/DERIVATION.md §11): once an emission is closed or
 * withdrawn, its blocks' secrets, the key ceremony's shares, the commitments and every sold unit
 * (serial, time of sale, prize) are written to a folder that anyone can check offline with
 * tools/carats-verify.mjs. The emission then records when it was first published, and by whom.
 *
 * Publishing again (to another folder) is allowed: once the game is over the bundle's content is
 * final, so a second copy says the same, and a lost or damaged bundle must be replaceable. Each
 * publication is audited; the emission keeps the first one's time and author, the moment the
 * secrets left the ledger.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { toHex } from '../../../game-core/primitives'
import { AppError, because } from '../../contract/errors'
import type { EmissionStatus } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { lockEmission } from '../../ledger/row-locks'
import type { KeyStore } from '../../ledger/keystore'
import type { AuditService } from '../audit'
import type { BlockRow, Catalog, EmissionRow } from '../catalog'
import type { CeremonyService } from './ceremony'
import { iso, type Actor, type Clock } from '../common'
import { definitionJson } from './definition-json'
import { writeBundleFile, writeSalesFile, type SalesFile, type WrittenFile } from './publication-files'
import { SOFTWARE } from '../version'

export const BUNDLE_FORMAT = 'carats-publication/1'
const PUBLISHABLE: readonly EmissionStatus[] = ['closed', 'withdrawn']

export interface PublicationResult {
  emission: number
  /** The folder written, as an absolute path. */
  dir: string
  publishedAt: string
  publishedBy: string
  /** When the emission was first published, if this is a later copy. */
  firstPublishedAt: string | null
  files: WrittenFile[]
  blocks: { block: number; seeding: string; unitsSold: number }[]
}

/** Where a publication stands: the block whose sales are being written, and its rows so far. */
export type PublicationProgress = (p: { block: number; blocks: number; rows: number }) => void

export interface PublicationService {
  publish(actor: Actor, emission: number, outDir: string, onProgress?: PublicationProgress): PublicationResult
}

export interface PublicationDeps {
  db: Db
  keys: KeyStore
  catalog: Catalog
  ceremony: CeremonyService
  audit: AuditService
  clock: Clock
}

function refuseUnlessOver(e: EmissionRow): void {
  if (PUBLISHABLE.includes(e.status)) return
  throw new AppError(
    'ILLEGAL_STATE',
    `emission ${e.emission} is ${e.status}: it is published only once the game is over (closed or withdrawn), since its secrets tell every unsold unit's outcome`,
    because('PUBLISH_NOT_OVER', { emission: e.emission, status: e.status }),
  )
}

/** The folder, new or empty, created if need be. */
function prepareDir(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory())
      throw new AppError('CONFLICT', `${dir} is a file: name a new or empty folder to publish into`, {
        field: 'out',
        ...because('PUBLISH_DIR_NOT_EMPTY', { dir }),
      })
    if (readdirSync(dir).length > 0)
      throw new AppError(
        'CONFLICT',
        `${dir} is not empty: name a new or empty folder, so that the bundle holds nothing else`,
        { field: 'out', ...because('PUBLISH_DIR_NOT_EMPTY', { dir }) },
      )
    return
  }
  mkdirSync(dir, { recursive: true })
}

function emissionPart(e: EmissionRow) {
  return {
    number: e.emission,
    code: e.code,
    status: e.status,
    demo: e.demo === 1,
    withdrawnReason: e.withdrawn_reason,
    createdAt: e.created_at,
    startsOn: e.starts_on,
    openedAt: e.opened_at,
    closedAt: e.closed_at,
  }
}

/** The complete ceremony with both shares opened; null when none was completed (its blocks are then single control). */
function ceremonyPart(ceremony: CeremonyService, emission: number) {
  const c = ceremony.get(emission)
  const shares = ceremony.shares(emission)
  if (!c || c.state !== 'complete' || !shares) return null
  return {
    startedBy: c.startedBy,
    startedAt: c.startedAt,
    custodian: c.custodian,
    contributedAt: c.contributedAt,
    source: c.custodianSource,
    serverShare: toHex(shares.server),
    serverHash: c.serverHash,
    custodianShare: toHex(shares.custodian),
    custodianHash: c.custodianHash,
  }
}

function blockPart(b: BlockRow, secret: Uint8Array | null, sales: SalesFile | null) {
  return {
    block: b.block,
    status: b.status,
    seeding: b.seeding,
    secret: secret ? toHex(secret) : null,
    commitment: b.commitment,
    commitmentVersion: b.commitment_version,
    generatedAt: b.generated_at,
    unitsSold: sales?.rows ?? 0,
    salesFile: sales?.name ?? null,
    salesSha256: sales?.sha256 ?? null,
  }
}

type BlockEntry = ReturnType<typeof blockPart>

export function createPublicationService({
  db,
  keys,
  catalog,
  ceremony,
  audit,
  clock,
}: PublicationDeps): PublicationService {
  const record = db.prepare(
    'UPDATE emissions SET published_at = coalesce(published_at, ?), published_by = coalesce(published_by, ?) WHERE emission = ?',
  )

  /** One block's sales file and entry; the rows written must be the ledger's count of units sold. */
  function publishBlock(
    dir: string,
    e: EmissionRow,
    b: BlockRow,
    blockSize: number,
    withCeremony: boolean,
    onRows: (rows: number) => void,
  ): { entry: BlockEntry; sales: SalesFile | null } {
    if (b.status === 'pending' || !b.secret) return { entry: blockPart(b, null, null), sales: null }
    if (b.seeding === 'two-person' && !withCeremony) {
      throw new AppError(
        'INTERNAL',
        `block ${e.emission}/${b.block} was seeded by two persons, yet the emission has no complete key ceremony: the ledger is inconsistent (carats ledger check)`,
      )
    }
    const sales = writeSalesFile(db, dir, e.emission, b.block, blockSize, onRows)
    if (sales.rows !== b.units_sold) {
      throw new AppError(
        'INTERNAL',
        `block ${e.emission}/${b.block}: ${sales.rows} sales found, the block counts ${b.units_sold}: the ledger is inconsistent (carats ledger check)`,
      )
    }
    return { entry: blockPart(b, keys.openSecret({ emission: e.emission, block: b.block }, b.secret), sales), sales }
  }

  function writeBundle(actor: Actor, e: EmissionRow, dir: string, now: string, onProgress?: PublicationProgress) {
    const def = catalog.definition(e.emission)
    const definition = definitionJson(def)
    if (definition.canonicalDefinition !== e.definition || definition.definitionDigest !== e.definition_digest) {
      throw new AppError(
        'INTERNAL',
        `emission ${e.emission}'s stored definition is not the canonical text of its digest: the ledger is inconsistent`,
      )
    }
    const cer = ceremonyPart(ceremony, e.emission)
    const parts = catalog
      .blocks(e.emission)
      .map((b) =>
        publishBlock(dir, e, b, def.blockSize, cer !== null, (rows) =>
          onProgress?.({ block: b.block, blocks: e.blocks, rows }),
        ),
      )
    const blocks = parts.map((p) => p.entry)
    const bundle = {
      format: BUNDLE_FORMAT,
      emission: emissionPart(e),
      definition,
      definitionCanonicalHex: Buffer.from(e.definition, 'utf8').toString('hex'),
      ceremony: cer,
      blocks,
      publishedAt: now,
      publishedBy: actor.name,
      software: { name: SOFTWARE.name, version: SOFTWARE.version },
    }
    const sales = parts.flatMap((p) => (p.sales ? [p.sales] : []))
    return { blocks, files: [...sales, writeBundleFile(dir, bundle)] }
  }

  return {
    publish(actor, emission, outDir, onProgress) {
      const dir = resolve(outDir)
      refuseUnlessOver(catalog.emission(emission))
      prepareDir(dir)
      const now = iso(clock())
      let written: { blocks: BlockEntry[]; files: WrittenFile[] }
      try {
        written = writeBundle(actor, catalog.emission(emission), dir, now, onProgress)
      } catch (err) {
        // nothing half-made is left behind: the folder was new or empty
        for (const f of readdirSync(dir)) rmSync(join(dir, f), { force: true })
        throw err
      }
      const blocks = written.blocks.map((b) => ({ block: b.block, seeding: b.seeding, unitsSold: b.unitsSold }))
      const first = db
        .transaction(() => {
          lockEmission(db, emission)
          const e = catalog.emission(emission)
          refuseUnlessOver(e)
          record.run(now, actor.name, emission)
          const files = Object.fromEntries(written.files.map((f) => [f.name, f.sha256]))
          audit.record(actor.name, 'emission.publish', `emission:${emission}`, {
            dir: basename(dir),
            files,
            blocks,
            ...(e.published_at ? { firstPublishedAt: e.published_at } : {}),
          })
          return e.published_at
        })
        .immediate()
      return {
        emission,
        dir,
        publishedAt: now,
        publishedBy: actor.name,
        firstPublishedAt: first,
        files: written.files,
        blocks,
      }
    },
  }
}
