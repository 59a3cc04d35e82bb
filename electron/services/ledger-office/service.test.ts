import { afterEach, describe, expect, it } from 'vitest'
import { backupFolder } from './service'

const saved = process.env.CARATS_BACKUP_DIR
afterEach(() => {
  if (saved === undefined) delete process.env.CARATS_BACKUP_DIR
  else process.env.CARATS_BACKUP_DIR = saved
})

describe('backupFolder', () => {
  it("is beside a ledger file, and beside a team ledger's key file (a URL is never taken for a folder)", () => {
    delete process.env.CARATS_BACKUP_DIR
    expect(backupFolder('/data/carats.db')).toBe('/data/backups')
    expect(backupFolder('postgresql:///carats?host=/var/run/postgresql', '/etc/carats/ledger.key')).toBe(
      '/etc/carats/backups',
    )
  })

  it('is CARATS_BACKUP_DIR when it is set', () => {
    process.env.CARATS_BACKUP_DIR = '/mnt/backups'
    expect(backupFolder('postgresql://db/carats', '/etc/carats/ledger.key')).toBe('/mnt/backups')
  })
})
