export { openLedger, type Db, type OpenOptions } from './db'
export {
  LATEST_VERSION,
  MIGRATIONS,
  APPLICATION_ID,
  unitKey,
  splitUnitKey,
  UNIT_KEY_BLOCK,
  UNIT_KEY_EMISSION,
} from './migrations'
export { openLedgerKey, keyStoreFromKey, keyFilePath, type KeyStore } from './keystore'
export { packPlay, unpackPlay, packEvents, unpackEvents, playCode } from './play-codec'
