/**
 * `emission publish`: publication after the game (game-core/DERIVATION.md §11). `emission show`
 * (ceremony-commands.ts) says when and by whom it was published (publicationLine).
 */
import type { EmissionSummary } from '../contract/types'
import { UsageError, type Command } from './io'
import { int, options, print, whole, withBackend } from './command-kit'

export const PUBLISH_HELP = `usage: carats emission publish <E> --out <dir>

Publishes emission E once the game is over (closed or withdrawn): writes into <dir>, which must
be new or empty, bundle.json (the game definition, the key ceremony and its two shares, each
block's secret, seeding and commitment) and, per block, sales-<E>-<B>.csv with every sold unit
(serial, time of sale, prize in cents). Anyone can then check it offline, with nothing but Node:
  node tools/carats-verify.mjs bundle <dir>
The bundle tells every unit's outcome: it is meant for an auditor, who publishes it. The command
line acts as the operating-system user (audited under that name, as an administrator); the
emission records when it was first published and by whom, and each publication is audited.
Publishing again into another folder writes the same content (the game is over).`

const emissionPublish: Command = async (ctx) => {
  if (ctx.args.includes('--help')) {
    ctx.io.out(PUBLISH_HELP + '\n')
    return 0
  }
  return withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { out: { type: 'string' } }, 1)
    const emission = whole('the emission number', pos[0], 1, 9999)
    if (!values.out)
      throw new UsageError(
        '--out <dir> is required: a new or empty folder for the bundle (carats emission publish --help)',
      )
    const r = b.services.publication.publish(b.actor, emission, values.out, (p) =>
      ctx.io.progress(`writing the sales of block ${p.block} of ${p.blocks}: ${int(p.rows)} rows`),
    )
    ctx.io.progress('')
    print(ctx, r, () =>
      [
        `emission ${emission} published into ${r.dir} by ${r.publishedBy} at ${r.publishedAt}${r.firstPublishedAt ? ` (a new copy: first published at ${r.firstPublishedAt})` : ''}`,
        ...r.blocks.map(
          (x) =>
            `  block ${x.block}: ${x.seeding === 'two-person' ? 'two-person seeding' : 'single control'}, ${int(x.unitsSold)} sold units`,
        ),
        ...r.files.map((f) => `  ${f.name}  sha256 ${f.sha256}`),
        `check it: node tools/carats-verify.mjs bundle ${r.dir}`,
      ].join('\n'),
    )
    return 0
  })
}

/** When and by whom the emission was published, or how to publish it (`emission show`). */
export function publicationLine(e: EmissionSummary): string {
  if (e.publishedAt) return `published at ${e.publishedAt} by ${e.publishedBy}`
  return `not published${e.status === 'closed' || e.status === 'withdrawn' ? ` (carats emission publish ${e.emission} --out <dir>)` : ''}`
}

/** What `carats help` says of the command. */
export const publishSynopsis: Record<string, string[]> = {
  'emission publish': [
    "emission publish <E> --out <dir>      after the game: secrets, shares and every sale, for the outsiders' verifier (an auditor)",
  ],
}

export const publishCommands: Record<string, Command> = {
  'emission publish': emissionPublish,
}
