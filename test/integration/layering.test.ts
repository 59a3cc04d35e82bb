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
    const found = await problems('game-core/probe.ts', [
      "import { createHash } from 'node:crypto'",
      "import { app } from 'electron'",
      "import { ref } from 'vue'",
      "import { contract } from '../electron/contract'",
      'export const all = [createHash, app, ref, contract, Math.random()]',
    ].join('\n'))
    expect(found).toHaveLength(5)
    expect(found.join('\n')).toMatch(/no Node import/)
    expect(found.join('\n')).toMatch(/Math.random/)
  })

  it('lets the renderer reach the backend only through the contract', async () => {
    const found = await problems('renderer/src/probe.ts', [
      "import fs from 'node:fs'",
      "import { ipcRenderer } from 'electron'",
      "import { openBackend } from '../../electron/services/backend'",
      "import { contract } from '../../electron/contract'",
      "import { CARATS } from '../../game-core/carats'",
      'export const all = [fs, ipcRenderer, openBackend, contract, CARATS]',
    ].join('\n'))
    expect(found).toHaveLength(3)
  })

  it('accepts game-core importing only itself', async () => {
    expect(await problems('game-core/probe.ts', "import { CARATS } from './carats'\nexport const c = CARATS\n")).toEqual([])
  })
})
