/** Migration 19 of a SQLite ledger (steps.sqlite.ts): the claims counted per block, status and prize on an index. */
// The prize liability (services/reports/liability.ts) counts an emission's claims per block, status
// and prize amount. Grouped by an expression of the unit key, they were sorted each time: about
// 0.1 s for a block sold at 100 € (81,164 claims). On this index they are read in order, covered.
export const V19 = /* sql */ `
CREATE INDEX claims_by_block ON claims(emission, (unit_key / 10000000) % 1000, status, prize_cents);
`
