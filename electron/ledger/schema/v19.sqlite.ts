/** Migration 19 of a SQLite ledger (steps.sqlite.ts): claims read per block and per status on indexes. */
// The prize liability (services/reports/liability.ts) counts an emission's claims per block, status
// and prize amount. Grouped by an expression of the unit key, they were sorted each time: about
// 0.1 s for a block sold at 100 € (81,164 claims). On this index they are read in order, covered.
export const V19 = /* sql */ `
CREATE INDEX claims_by_block ON claims(emission, (unit_key / 10000000) % 1000, status, prize_cents);
-- one emission's claims of one status, newest first: the list's page. On claims_by_emission the order
-- (time of sale, then unit) needs a sort, so the planner walked claims_by_emission_time instead and
-- read every claim of the emission for a status that has none (65 ms for 81,164 claims, the bench)
CREATE INDEX claims_by_emission_status ON claims(emission, status, sold_at);
`
