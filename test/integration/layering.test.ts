import { describe, expect, it } from 'vitest'
import { ESLint } from 'eslint'

// The lint rules that keep the layers apart (ARCHITECTURE.md, convention 7) must actually fire.
const eslint = new ESLint({ cwd: process.cwd() })

async function problems(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.map((m) => m.message)
}

describe('layering lint', () => {
  it('keeps game-core free of Node, Electron, Vue, the app and Math.random', async () => {
    const found = await problems(
      'game-core/probe.ts',
      [
        "import { createHash } from 'node:crypto'",
        "import { app } from 'electron'",
        "import { ref } from 'vue'",
        "import { contract } from '../electron/contract'",
        'export const all = [createHash, app, ref, contract, Math.random()]',
      ].join('\n'),
    )
    expect(found).toHaveLength(5)
    expect(found.join('\n')).toMatch(/no Node import/)
    expect(found.join('\n')).toMatch(/Math.random/)
  })

  it('lets the renderer reach the backend only through the contract', async () => {
    const found = await problems(
      'renderer/src/probe.ts',
      [
        "import fs from 'node:fs'",
        "import { ipcRenderer } from 'electron'",
        "import { openBackend } from '../../electron/app/backend'",
        "import { contract } from '../../electron/contract'",
        "import { CARATS } from '../../game-core/carats'",
        'export const all = [fs, ipcRenderer, openBackend, contract, CARATS]',
      ].join('\n'),
    )
    expect(found).toHaveLength(3)
  })

  it('accepts game-core importing only itself', async () => {
    expect(
      await problems('game-core/probe.ts', "import { CARATS } from './carats'\nexport const c = CARATS\n"),
    ).toEqual([])
  })
})

describe('the layers of electron/ and the domains', () => {
  it('refuses an import up a layer, and an import of a file inside a domain from outside it', async () => {
    const up = await problems(
      'electron/services/probe.ts',
      "import { entry } from '../workers/read-worker'\nexport const p = entry\n",
    )
    expect(up.join('\n')).toMatch(/a layer above it: imports point down/)
    const ledgerUp = await problems(
      'electron/ledger/probe.ts',
      "import { createCatalog } from '../services/catalog'\nexport const c = createCatalog\n",
    )
    expect(ledgerUp).toHaveLength(1)
    const fixture = await problems(
      'electron/services/probe.ts',
      "import { smallDefinition } from '../../test/support/game-fixtures'\nexport const d = smallDefinition\n",
    )
    expect(fixture.join('\n')).toMatch(/takes nothing from the tests/)
    const inside = await problems(
      'test/integration/probe.ts',
      "import { Irregular } from '../../electron/services/import/stream'\nexport const i = Irregular\n",
    )
    expect(inside.join('\n')).toMatch(
      /inside the domain electron\/services\/import: import it from '..\/..\/electron\/services\/import'/,
    )
  })

  it('lets a file import down, a domain through its index.ts, and a domain its own files', async () => {
    expect(
      await problems(
        'electron/workers/probe.ts',
        "import { createImporter } from '../services/import'\nexport const c = createImporter\n",
      ),
    ).toEqual([])
    expect(
      await problems(
        'electron/cli/probe.ts',
        "import { feedLine } from '../services/import/index'\nexport const f = feedLine\n",
      ),
    ).toEqual([])
    expect(
      await problems(
        'electron/services/import/probe.ts',
        "import { Irregular } from './stream'\nexport const i = Irregular\n",
      ),
    ).toEqual([])
  })

  it('has no import up a layer anywhere in electron/', async () => {
    const { upwardImports } = await import('../../scripts/lint-layers.mjs')
    expect(upwardImports()).toEqual([])
  })

  it('has no circle of imports in electron/, a domain entered through its index counted by the names taken', async () => {
    const { importCycles } = await import('../../scripts/lint-layers.mjs')
    expect(importCycles()).toEqual([])
  })
})
