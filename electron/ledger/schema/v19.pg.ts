/** Step 19 on PostgreSQL: v19.sqlite.ts, the claims counted per block, status and prize on an index. */
export const PG_V19 = /* sql */ `
CREATE INDEX claims_by_block ON claims(emission, ((unit_key / 10000000) % 1000), status, prize_cents);
CREATE INDEX claims_by_emission_status ON claims(emission, status, sold_at);
`
