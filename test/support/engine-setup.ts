/**
 * Every test file's setup (vitest setupFiles): on PostgreSQL, the server must answer (the file
 * fails, saying how to start one, rather than skip); after the file, the databases its ledgers
 * were made in are dropped.
 */
import { afterAll } from 'vitest'
import { checkTestServer, dropTestLedgers, testEngine } from './ledger-engine'

if (testEngine() === 'postgres') checkTestServer()

afterAll(() => dropTestLedgers())
