/**
 * The template ledger (ledger-fixture.ts) opened once per test, as staff call it through the
 * backend's dispatcher: for the tests of insiders and of one person, one account.
 */
import { afterEach, beforeAll } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import { openEmissionBackend, PASSWORD, templatePath, tempDir } from './ledger-fixture'

/** Call at the top of a test file: a function that opens a copy of the template, closed and removed after each test. */
export function useTemplateLedgers(label: string): { ledger(): Promise<Backend>; release(b: Backend): string } {
  const open: { b: Backend; dir: string }[] = []
  afterEach(async () => {
    for (const { b, dir } of open.splice(0)) {
      await b.closeGracefully()
      rmSync(dir, { recursive: true, force: true })
    }
  })
  beforeAll(async () => {
    await templatePath()
  }, 170_000)
  return {
    async ledger() {
      const dir = tempDir(label)
      const b = await openEmissionBackend(dir)
      open.push({ b, dir })
      return b
    },
    /** Leaves the backend to the test (it closes it); returns its folder, for the test to remove. */
    release(b) {
      const i = open.findIndex((o) => o.b === b)
      return open.splice(i, 1)[0].dir
    },
  }
}

export type Reply =
  { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; reason?: { key: string } } }
export const call = (b: Backend, channel: string, args: unknown, token: string | null = null) =>
  b.dispatch(channel, args, token) as Promise<Reply>

export async function signIn(b: Backend, name: string): Promise<string> {
  const r = await call(b, 'auth:login', { name, password: PASSWORD })
  if (!r.ok) throw new Error(`${name} could not sign in: ${r.error.message}`)
  return (r.result as { token: string }).token
}
